/// What a filter does to a picture at one actual intensity (docs/filters.md, "Pixel
/// model"): full-range RGB in [0, 1], each stage's output clamped to [0, 1].
///
/// The engine fuses stages: leading `channel` stages become one 256-entry table, `pixel`
/// stages run row by row over float planes, `picture` stages run as passes of their own.
public enum FilterStage: Sendable {
    /// A function of each channel value alone.
    case channel(any ChannelOperation)
    /// A function of one pixel (and where it is).
    case pixel(any PixelOperation)
    /// Reads neighbours or moves pixels: a pass over the whole picture.
    case picture(any PictureOperation)
    /// A lookup image or a `.cube` file blended in by `amount`; the engine loads the file.
    case asset(FilterAsset, amount: Float)
}

/// A file a filter reads, by its reference (resolved like media, docs/session-format.md).
public struct FilterAsset: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// GPUImage's 512×512 lookup image (PNG).
        case lookupImage
        /// An Adobe/Resolve `.cube` 3D LUT.
        case cube
    }

    public let kind: Kind
    public let reference: String

    public init(kind: Kind, reference: String) {
        self.kind = kind
        self.reference = reference
    }
}

/// One row of a picture held as three float planes.
public struct PixelRow {
    public let r: UnsafeMutablePointer<Float>
    public let g: UnsafeMutablePointer<Float>
    public let b: UnsafeMutablePointer<Float>
    public let count: Int
    /// The row's index and the picture's size, for operations that depend on position.
    public let y: Int
    public let width: Int
    public let height: Int

    public init(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>,
                count: Int, y: Int, width: Int, height: Int) {
        self.r = r
        self.g = g
        self.b = b
        self.count = count
        self.y = y
        self.width = width
        self.height = height
    }
}

public protocol PixelOperation: Sendable {
    /// Runs over one row in place, clamping its results to [0, 1].
    func apply(_ row: PixelRow)
    /// True when the result depends on where the pixel is, not only on its colour: the
    /// engine then cannot remember results by colour (docs/filters.md, "How the engine runs a chain").
    var dependsOnPosition: Bool { get }
    /// True for a few multiplies and adds a pixel, with no table, branch or transcendental:
    /// cheaper to run than to look up in the engine's colour memo, which a chain of only
    /// such stages then goes without (docs/filters.md, "How the engine runs a chain").
    var isLight: Bool { get }
}

extension PixelOperation {
    public var dependsOnPosition: Bool { false }
    public var isLight: Bool { false }
}

public protocol ChannelOperation: PixelOperation {
    /// The unclamped result for one channel value.
    func channel(_ x: Float) -> Float
}

extension ChannelOperation {
    public func apply(_ row: PixelRow) {
        for x in 0..<row.count {
            row.r[x] = clampUnit(channel(row.r[x]))
            row.g[x] = clampUnit(channel(row.g[x]))
            row.b[x] = clampUnit(channel(row.b[x]))
        }
    }
}

/// A pass over the whole picture, reading `source` and writing every pixel of `destination`.
public protocol PictureOperation: Sendable {
    /// True when the result changes with the picture's orientation (rotations, perspective):
    /// the engine then runs the chain on the oriented picture.
    var needsOrientedPicture: Bool { get }
    func apply(_ source: PlanarPicture, into destination: inout PlanarPicture)
    /// The same operation on a picture `scale` times the render size (a thumbnail is
    /// smaller): lengths given in render-size pixels (blur sigma, Sobel step) scale with
    /// it, so the picture looks like the rendered frame scaled (docs/rendering.md, "Thumbnails and frames").
    func scaled(by scale: Float) -> any PictureOperation
}

extension PictureOperation {
    /// Operations defined in texture coordinates do not change with the picture's size.
    public func scaled(by scale: Float) -> any PictureOperation { self }
}

/// A picture as three float planes of `width × height`, row-major.
public struct PlanarPicture: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var r: [Float]
    public var g: [Float]
    public var b: [Float]

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        r = [Float](repeating: 0, count: width * height)
        g = r
        b = r
    }

    /// Bilinear read at continuous pixel coordinates (pixel centres at +½), clamped to the edges.
    @inline(__always)
    public func bilinear(_ x: Float, _ y: Float) -> (Float, Float, Float) {
        let fx = min(max(x - 0.5, 0), Float(width - 1)), fy = min(max(y - 0.5, 0), Float(height - 1))
        let x0 = min(Int(fx), width - 1), y0 = min(Int(fy), height - 1)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let tx = fx - Float(x0), ty = fy - Float(y0)
        let i00 = y0 * width + x0, i10 = y0 * width + x1, i01 = y1 * width + x0, i11 = y1 * width + x1
        func at(_ p: [Float]) -> Float {
            let top = p[i00] + (p[i10] - p[i00]) * tx
            let bottom = p[i01] + (p[i11] - p[i01]) * tx
            return top + (bottom - top) * ty
        }
        return (at(r), at(g), at(b))
    }
}

@inlinable @inline(__always)
public func clampUnit(_ x: Float) -> Float { min(max(x, 0), 1) }

/// GLSL's `mix`.
@inlinable @inline(__always)
public func mix(_ x: Float, _ y: Float, _ t: Float) -> Float { x + (y - x) * t }

/// GLSL's `smoothstep`.
@inlinable @inline(__always)
public func smoothstep(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
    let t = clampUnit((x - e0) / (e1 - e0))
    return t * t * (3 - 2 * t)
}

/// Rec. 709 luma weights GPUImage uses for luminance.
@inlinable @inline(__always)
public func luminance(_ r: Float, _ g: Float, _ b: Float) -> Float { r * 0.2125 + g * 0.7154 + b * 0.0721 }
