/// Bilinear reads of a planar picture, clamped to the edge pixels, as the catalogue's pixel
/// model defines them (docs/filters.md): the visual effects and the position warps read
/// through it. IEEE `Float` only, so every worker computes the same bits.
/// A planar picture's three planes, read bilinearly.
struct PlaneReader {
    let r: UnsafeBufferPointer<Float>
    let g: UnsafeBufferPointer<Float>
    let b: UnsafeBufferPointer<Float>
    let width: Int
    let height: Int
    private let maxX: Float
    private let maxY: Float

    init(r: UnsafeBufferPointer<Float>, g: UnsafeBufferPointer<Float>, b: UnsafeBufferPointer<Float>, width: Int, height: Int) {
        self.r = r
        self.g = g
        self.b = b
        self.width = width
        self.height = height
        maxX = Float(width - 1)
        maxY = Float(height - 1)
    }

    /// The colour at texture coordinate (u, v).
    @inline(__always)
    func sample(u: Float, v: Float) -> (Float, Float, Float) {
        sample(x: u * Float(width), y: v * Float(height))
    }

    /// The colour at pixel coordinate (x, y), pixel centres at +½. NaN reads the corner.
    @inline(__always)
    func sample(x: Float, y: Float) -> (Float, Float, Float) {
        let tap = BilinearTap(x: x, y: y, width: width, height: height, maxX: maxX, maxY: maxY)
        let i00 = tap.y0 * width + tap.x0, i10 = tap.y0 * width + tap.x1
        let i01 = tap.y1 * width + tap.x0, i11 = tap.y1 * width + tap.x1
        return (Self.blend(r, i00, i10, i01, i11, tap.tx, tap.ty), Self.blend(g, i00, i10, i01, i11, tap.tx, tap.ty),
                Self.blend(b, i00, i10, i01, i11, tap.tx, tap.ty))
    }

    @inline(__always)
    static func blend(_ p: UnsafeBufferPointer<Float>, _ i00: Int, _ i10: Int, _ i01: Int, _ i11: Int,
                      _ tx: Float, _ ty: Float) -> Float {
        let top = p[i00] + (p[i10] - p[i00]) * tx
        let bottom = p[i01] + (p[i11] - p[i01]) * tx
        return top + (bottom - top) * ty
    }
}

/// The four pixels a bilinear read at pixel coordinate (x, y) blends and its weights:
/// clamped to the edge pixels, pixel centres at +½ (docs/filters.md, "Pixel model").
struct BilinearTap {
    let x0: Int, y0: Int, x1: Int, y1: Int
    let tx: Float, ty: Float

    @inline(__always)
    init(x: Float, y: Float, width: Int, height: Int, maxX: Float, maxY: Float) {
        var fx = x - 0.5, fy = y - 0.5
        fx = fx > 0 ? fx : 0
        fx = fx < maxX ? fx : maxX
        fy = fy > 0 ? fy : 0
        fy = fy < maxY ? fy : maxY
        x0 = Int(fx)
        y0 = Int(fy)
        x1 = x0 + 1 < width ? x0 + 1 : x0
        y1 = y0 + 1 < height ? y0 + 1 : y0
        tx = fx - Float(x0)
        ty = fy - Float(y0)
    }
}
