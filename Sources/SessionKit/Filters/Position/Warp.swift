/// Resamples a picture through a projective map (docs/filters.md, "Position filters"):
/// each output pixel centre, in coordinates centred on the picture, is taken through
/// `inverse` to the source point it shows, read bilinearly with edges clamped.
public struct Warp: PictureOperation {
    /// Row-major 3×3, output (centred) → source (centred), homogeneous.
    public let inverse: [Double]
    public var needsOrientedPicture: Bool { true }

    public init(inverse: [Double]) { self.inverse = inverse }

    public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
        let w = source.width, h = source.height
        let cx = Double(w) / 2, cy = Double(h) / 2
        let m = inverse
        let maxX = Float(w - 1), maxY = Float(h - 1)
        source.r.withUnsafeBufferPointer { sr in source.g.withUnsafeBufferPointer { sg in source.b.withUnsafeBufferPointer { sb in
        destination.r.withUnsafeMutableBufferPointer { dr in destination.g.withUnsafeMutableBufferPointer { dg in
        destination.b.withUnsafeMutableBufferPointer { db in
            for y in 0..<h {
                let qy = Double(y) + 0.5 - cy
                for x in 0..<w {
                    let qx = Double(x) + 0.5 - cx
                    let z = m[6] * qx + m[7] * qy + m[8]
                    // Source position in pixels, centres at +½, clamped to the edge pixels.
                    let fx = min(max(Float((m[0] * qx + m[1] * qy + m[2]) / z + cx) - 0.5, 0), maxX)
                    let fy = min(max(Float((m[3] * qx + m[4] * qy + m[5]) / z + cy) - 0.5, 0), maxY)
                    let x0 = Int(fx), y0 = Int(fy)
                    let x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
                    let tx = fx - Float(x0), ty = fy - Float(y0)
                    let i00 = y0 * w + x0, i10 = y0 * w + x1, i01 = y1 * w + x0, i11 = y1 * w + x1
                    let i = y * w + x
                    dr[i] = Self.blend(sr, i00, i10, i01, i11, tx, ty)
                    dg[i] = Self.blend(sg, i00, i10, i01, i11, tx, ty)
                    db[i] = Self.blend(sb, i00, i10, i01, i11, tx, ty)
                }
            }
        } } } } } }
    }

    @inline(__always)
    static func blend(_ p: UnsafeBufferPointer<Float>, _ i00: Int, _ i10: Int, _ i01: Int, _ i11: Int,
                      _ tx: Float, _ ty: Float) -> Float {
        let top = p[i00] + (p[i10] - p[i00]) * tx
        let bottom = p[i01] + (p[i11] - p[i01]) * tx
        return top + (bottom - top) * ty
    }
}

/// 3×3 matrices, row-major, for building warps.
enum Matrix3 {
    static func product(_ a: [Double], _ b: [Double]) -> [Double] {
        var result = [Double](repeating: 0, count: 9)
        for i in 0..<3 {
            for j in 0..<3 {
                var sum = 0.0
                for k in 0..<3 { sum += a[i * 3 + k] * b[k * 3 + j] }
                result[i * 3 + j] = sum
            }
        }
        return result
    }

    static func inverse(_ m: [Double]) -> [Double] {
        let c00: Double = m[4] * m[8] - m[5] * m[7]
        let c01: Double = m[5] * m[6] - m[3] * m[8]
        let c02: Double = m[3] * m[7] - m[4] * m[6]
        let det: Double = m[0] * c00 + m[1] * c01 + m[2] * c02
        let row0: [Double] = [c00, m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4]]
        let row1: [Double] = [c01, m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5]]
        let row2: [Double] = [c02, m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]]
        return (row0 + row1 + row2).map { $0 / det }
    }

    static func apply(_ m: [Double], _ x: Double, _ y: Double) -> (Double, Double) {
        let z = m[6] * x + m[7] * y + m[8]
        return ((m[0] * x + m[1] * y + m[2]) / z, (m[3] * x + m[4] * y + m[5]) / z)
    }

    static func scale(_ s: Double) -> [Double] { [s, 0, 0, 0, s, 0, 0, 0, 1] }
}
