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
        source.r.withUnsafeBufferPointer { sr in source.g.withUnsafeBufferPointer { sg in source.b.withUnsafeBufferPointer { sb in
        destination.r.withUnsafeMutableBufferPointer { dr in destination.g.withUnsafeMutableBufferPointer { dg in
        destination.b.withUnsafeMutableBufferPointer { db in
            let reader = PlaneReader(r: sr, g: sg, b: sb, width: w, height: h)
            for y in 0..<h {
                let qy = Double(y) + 0.5 - cy
                for x in 0..<w {
                    let qx = Double(x) + 0.5 - cx
                    let z = m[6] * qx + m[7] * qy + m[8]
                    let (r, g, b) = reader.sample(x: Float((m[0] * qx + m[1] * qy + m[2]) / z + cx),
                                                  y: Float((m[3] * qx + m[4] * qy + m[5]) / z + cy))
                    let i = y * w + x
                    dr[i] = r
                    dg[i] = g
                    db[i] = b
                }
            }
        } } } } } }
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
