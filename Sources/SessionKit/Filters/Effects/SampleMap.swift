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
        self.width = width
        self.height = height
        let point = distortion.sourcePoints(width: width, height: height)
        let count = width * height
        precondition(width <= 1 << 16 && height <= 1 << 16, "a sample map of a picture over 65536 pixels a side")
        var corner = [UInt32](repeating: Self.black, count: count), steps = [UInt8](repeating: 0, count: count)
        var tx = [Float](repeating: 0, count: count), ty = [Float](repeating: 0, count: count)
        let fw = Float(width), fh = Float(height), maxX = Float(width - 1), maxY = Float(height - 1)
        let us = pixelCentres(width), vs = pixelCentres(height)
        for y in 0..<height {
            for x in 0..<width {
                guard let (su, sv) = point(us[x], vs[y]) else { continue }
                let tap = BilinearTap(x: su * fw, y: sv * fh, width: width, height: height, maxX: maxX, maxY: maxY)
                let i = y * width + x
                corner[i] = UInt32(tap.y0) << 16 | UInt32(tap.x0)
                steps[i] = UInt8(tap.x1 - tap.x0) | UInt8(tap.y1 - tap.y0) << 1
                tx[i] = tap.tx
                ty[i] = tap.ty
            }
        }
        (self.corner, self.steps, self.tx, self.ty) = (corner, steps, tx, ty)
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
