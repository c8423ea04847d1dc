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

extension PixelRow {
    /// Runs `body` over the row eight pixels at a time (the last group padded with zeros),
    /// writing back what it returns, clamped to [0, 1].
    @inlinable @inline(__always)
    public func forEachLanes(_ body: (PortableMath.Lanes, PortableMath.Lanes, PortableMath.Lanes)
                             -> (PortableMath.Lanes, PortableMath.Lanes, PortableMath.Lanes)) {
        typealias L = PortableMath.Lanes
        let zero = L(repeating: 0), one = L(repeating: 1)
        var x = 0
        while x < count {
            let n = Swift.min(8, count - x)
            var lr = zero, lg = zero, lb = zero
            for i in 0..<n { lr[i] = r[x + i]; lg[i] = g[x + i]; lb[i] = b[x + i] }
            var (or, og, ob) = body(lr, lg, lb)
            or = or.clamped(lowerBound: zero, upperBound: one)
            og = og.clamped(lowerBound: zero, upperBound: one)
            ob = ob.clamped(lowerBound: zero, upperBound: one)
            for i in 0..<n { r[x + i] = or[i]; g[x + i] = og[i]; b[x + i] = ob[i] }
            x += 8
        }
    }
}

public protocol PixelOperation: Sendable {
    /// Runs over one row in place, clamping its results to [0, 1].
    func apply(_ row: PixelRow)
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
