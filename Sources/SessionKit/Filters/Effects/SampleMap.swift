/// An effect that only moves pixels (swirl, bulge, pinch, sphereRefraction,
/// stretchDistortion): each pixel reads the source at a point that depends on where the
/// pixel is, never on the picture's colours (docs/filters.md, "Visual effects").
public protocol Distortion: PictureOperation {
    /// For a picture `width`×`height`: the texture coordinate the pixel centred at (u, v)
    /// reads, or nil where the pixel is black. Called once per pixel when a map is made.
    func sourcePoints(width: Int, height: Int) -> (Float, Float) -> (Float, Float)?
}

extension Distortion {
    public var needsOrientedPicture: Bool { true }

    public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
        SampleMap(self, width: source.width, height: source.height).apply(source, into: &destination)
    }
}

/// Where each pixel of a distorted picture reads its source: the top-left pixel of its
/// bilinear read and the read's weights. A distortion's coordinates are the same for every
/// frame, so the engine makes the map once per picture size and each frame only gathers
/// and blends (a 1080p swirl: ≈ 20 ns a pixel of coordinate arithmetic, once). The blend is
/// `PlaneReader`'s own, so the bits are those of reading at the coordinates directly.
public struct SampleMap: Sendable {
    public let width: Int
    public let height: Int
    /// Reads averaged for each sample: 1, or 4 for chroma maps (`init(chromaOf:)`).
    private let taps: Int
    /// The top-left pixel of each read, `y << 16 | x` (render sizes are at most 16384
    /// pixels a side), or `black` where the pixel is black.
    private let corner: [UInt32]
    private static let black = UInt32.max
    /// Bit 0: the right pixel of the read is the next one (else the same, at the right
    /// edge); bit 1: the lower pixel is on the next row (else the same row).
    private let steps: [UInt8]
    private let tx: [Float]
    private let ty: [Float]

    public init(_ distortion: some Distortion, width: Int, height: Int) {
        let point = distortion.sourcePoints(width: width, height: height)
        let us = pixelCentres(width), vs = pixelCentres(height), fw = Float(width), fh = Float(height)
        self.init(width: width, height: height, taps: 1) { x, y, _ in
            point(us[x], vs[y]).map { (u, v) in (u * fw, v * fh) }
        }
    }

    /// The map of a 4:2:0 picture's chroma planes (`lumaWidth/2` × `lumaHeight/2`) under
    /// `distortion`, which is defined on the luma picture. A chroma sample stands for a
    /// 2×2 patch of luma pixels about where it sits, so it becomes the mean of four reads
    /// where the patch's corners read: near what converting to RGB, distorting and
    /// subsampling would give, where one read per sample smears colours across a tight
    /// swirl's turns
    /// (docs/filters.md, "How the engine runs a chain").
    public init(chromaOf distortion: some Distortion, lumaWidth: Int, lumaHeight: Int) {
        let point = distortion.sourcePoints(width: lumaWidth, height: lumaHeight)
        let vs = pixelCentres(lumaHeight), fw = Float(lumaWidth), fh = Float(lumaHeight)
        self.init(width: lumaWidth / 2, height: lumaHeight / 2, taps: 4) { x, y, k in
            // Sample (x, y) sits on luma column 2x's centre, between rows 2y and 2y + 1:
            // its reads are half a pixel either side across, on the two rows down. Luma
            // u·W in chroma pixels (centres at +½): (u·W − ½)/2 + ½ across, v·H/2 down.
            point(Float(2 * x + k & 1) / fw, vs[2 * y + k >> 1]).map { (u, v) in ((u * fw - 0.5) / 2 + 0.5, v * fh / 2) }
        }
    }

    /// `read(x, y, k)`: where read k of sample (x, y) reads, in continuous pixel
    /// coordinates of this plane (pixel centres at +½), or nil where it reads black.
    private init(width: Int, height: Int, taps: Int, read: (Int, Int, Int) -> (Float, Float)?) {
        self.width = width
        self.height = height
        self.taps = taps
        let count = width * height * taps
        precondition(width <= 1 << 16 && height <= 1 << 16, "a sample map of a picture over 65536 pixels a side")
        var corner = [UInt32](repeating: Self.black, count: count), steps = [UInt8](repeating: 0, count: count)
        var tx = [Float](repeating: 0, count: count), ty = [Float](repeating: 0, count: count)
        let maxX = Float(width - 1), maxY = Float(height - 1)
        for y in 0..<height {
            for x in 0..<width {
                for k in 0..<taps {
                    guard let (px, py) = read(x, y, k) else { continue }
                    let tap = BilinearTap(x: px, y: py, width: width, height: height, maxX: maxX, maxY: maxY)
                    let i = (y * width + x) * taps + k
                    corner[i] = UInt32(tap.y0) << 16 | UInt32(tap.x0)
                    steps[i] = UInt8(tap.x1 - tap.x0) | UInt8(tap.y1 - tap.y0) << 1
                    tx[i] = tap.tx
                    ty[i] = tap.ty
                }
            }
        }
        (self.corner, self.steps, self.tx, self.ty) = (corner, steps, tx, ty)
    }

    /// Writes every sample of an 8-bit plane `destination` from `source` (both
    /// `width`×`height`): the mean of its bilinear reads in `Float` (`black` for a read
    /// where the map is black), rounded to the nearest whole value.
    public func apply(plane source: UnsafePointer<UInt8>, stride sourceStride: Int,
                      into destination: UnsafeMutablePointer<UInt8>, stride destinationStride: Int, black: UInt8) {
        let taps = taps, share = 1 / Float(taps)
        corner.withUnsafeBufferPointer { corner in steps.withUnsafeBufferPointer { steps in
        tx.withUnsafeBufferPointer { tx in ty.withUnsafeBufferPointer { ty in
            @inline(__always)
            func read(_ i: Int) -> Float {
                let c = corner[i]
                guard c != Self.black else { return Float(black) }
                let s = Int(steps[i])
                let p00 = source + Int(c >> 16) * sourceStride + Int(c & 0xFFFF)
                let p10 = p00 + (s & 1), p01 = p00 + (s >> 1) * sourceStride, p11 = p01 + (s & 1)
                let top = Float(p00.pointee) + (Float(p10.pointee) - Float(p00.pointee)) * tx[i]
                let bottom = Float(p01.pointee) + (Float(p11.pointee) - Float(p01.pointee)) * tx[i]
                return top + (bottom - top) * ty[i]
            }
            for y in 0..<height {
                let out = destination + y * destinationStride
                for x in 0..<width {
                    let first = (y * width + x) * taps
                    // In 0 … 255 (a mean of blends of bytes): truncating v + ½ rounds it.
                    let value = taps == 1 ? read(first) : (read(first) + read(first + 1) + read(first + 2) + read(first + 3)) * share
                    out[x] = UInt8(truncatingIfNeeded: Int32(value + 0.5))
                }
            }
        } } } }
    }

    /// Writes every pixel of `destination` from `source` (both `width`×`height`).
    public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
        precondition(source.width == width && source.height == height, "a sample map applied to a picture of another size")
        let w = width
        source.r.withUnsafeBufferPointer { sr in source.g.withUnsafeBufferPointer { sg in source.b.withUnsafeBufferPointer { sb in
            forEachRead(into: &destination) { x0, y0, right, down, fx, fy in
                let b = y0 * w + x0, i10 = b + right, i01 = b + down * w, i11 = i01 + right
                return (PlaneReader.blend(sr, b, i10, i01, i11, fx, fy), PlaneReader.blend(sg, b, i10, i01, i11, fx, fy),
                        PlaneReader.blend(sb, b, i10, i01, i11, fx, fy))
            }
        } } }
    }

    /// Writes every pixel of `destination` from a packed 8-bit RGB picture whose value v
    /// means `leading[v]` (a chain's first step reads the frame as it comes: the three
    /// bytes of a pixel lie together, so a read touches 2 cache lines where float planes
    /// take 6). The same bits as reading float planes that hold `leading[v]`.
    public func apply(packed rgb: UnsafePointer<UInt8>, stride: Int, leading: UnsafePointer<Float>,
                      into destination: inout PlanarPicture) {
        forEachRead(into: &destination) { x0, y0, right, down, fx, fy in
            let p00 = rgb + y0 * stride + 3 * x0, p10 = p00 + 3 * right, p01 = p00 + down * stride, p11 = p01 + 3 * right
            @inline(__always)
            func blend(_ k: Int) -> Float {
                let top = leading[Int(p00[k])] + (leading[Int(p10[k])] - leading[Int(p00[k])]) * fx
                let bottom = leading[Int(p01[k])] + (leading[Int(p11[k])] - leading[Int(p01[k])]) * fx
                return top + (bottom - top) * fy
            }
            return (blend(0), blend(1), blend(2))
        }
    }

    /// Calls `read(x0, y0, right, down, tx, ty)` for every pixel that is not black and
    /// writes what it gives, clamped; `right` and `down` are 1 where the read's other
    /// pixels are the next column and row, 0 at the last.
    @inline(__always)
    private func forEachRead(into destination: inout PlanarPicture,
                             _ read: (Int, Int, Int, Int, Float, Float) -> (Float, Float, Float)) {
        precondition(destination.width == width && destination.height == height, "a sample map written to a picture of another size")
        corner.withUnsafeBufferPointer { corner in steps.withUnsafeBufferPointer { steps in
        tx.withUnsafeBufferPointer { tx in ty.withUnsafeBufferPointer { ty in
        destination.r.withUnsafeMutableBufferPointer { dr in destination.g.withUnsafeMutableBufferPointer { dg in
        destination.b.withUnsafeMutableBufferPointer { db in
            for i in 0..<corner.count {
                let c = corner[i]
                guard c != Self.black else {
                    dr[i] = 0
                    dg[i] = 0
                    db[i] = 0
                    continue
                }
                let s = Int(steps[i])
                let (r, g, b) = read(Int(c & 0xFFFF), Int(c >> 16), s & 1, s >> 1, tx[i], ty[i])
                dr[i] = clampUnit(r)
                dg[i] = clampUnit(g)
                db[i] = clampUnit(b)
            }
        } } } } } } }
    }
}
