/// A separable Gaussian blur of standard deviation `sigma` pixels, edges clamped
/// (docs/filters.md, "Visual effects"): weights `exp(−k²/2σ²)` for |k| ≤ ⌈3σ⌉, normalised
/// to sum 1. The vertical pass runs over whole rows and the horizontal one over a padded
/// copy of each row, taps paired by symmetry, so both inner loops vectorise.
struct GaussianKernel: Sendable {
    let sigma: Double
    /// w₀ … w_R.
    let weights: [Float]

    init(sigma: Double) {
        self.sigma = sigma
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        let raw = (0...radius).map { k in
            PortableMath.exp2(-Double(k * k) / (2 * sigma * sigma) / 0.693_147_180_559_945_3)
        }
        let total = raw[0] + 2 * raw.dropFirst().reduce(0, +)
        weights = raw.map { Float($0 / total) }
    }

    var radius: Int { weights.count - 1 }

    /// Blurs `source` into `destination` (same size), all three planes.
    func blur(_ source: PlanarPicture, into destination: inout PlanarPicture) {
        let w = source.width, h = source.height
        var padded = [Float](repeating: 0, count: w + 2 * radius)
        blurPlane(source.r, into: &destination.r, w, h, &padded)
        blurPlane(source.g, into: &destination.g, w, h, &padded)
        blurPlane(source.b, into: &destination.b, w, h, &padded)
    }

    private func blurPlane(_ source: [Float], into destination: inout [Float], _ w: Int, _ h: Int, _ padded: inout [Float]) {
        let radius = radius
        weights.withUnsafeBufferPointer { wk in
        source.withUnsafeBufferPointer { src in
        destination.withUnsafeMutableBufferPointer { dst in
        padded.withUnsafeMutableBufferPointer { pad in
            guard let s = src.baseAddress, let d = dst.baseAddress, let p = pad.baseAddress else { return }
            // Vertical: row y of the destination from rows y − R … y + R of the source.
            for y in 0..<h {
                let out = d + y * w
                Self.scale(s + y * w, by: wk[0], into: out, count: w)
                for k in 1...radius {
                    Self.accumulate(s + max(y - k, 0) * w, s + min(y + k, h - 1) * w, weight: wk[k], into: out, count: w)
                }
            }
            // Horizontal, in place: each row copied with R clamped pixels on either side.
            for y in 0..<h {
                let row = d + y * w
                let first = row[0], last = row[w - 1]
                for i in 0..<radius { p[i] = first; p[radius + w + i] = last }
                (p + radius).update(from: row, count: w)
                let centre = p + radius
                Self.scale(centre, by: wk[0], into: row, count: w)
                for k in 1...radius {
                    Self.accumulate(centre - k, centre + k, weight: wk[k], into: row, count: w)
                }
            }
        } } } }
    }

    // The compiler cannot prove the rows apart, so it would not vectorise these loops;
    // 8 lanes at a time by hand, each lane the scalar loop's own operations (same bits).

    /// `out = weight · a`.
    @inline(__always)
    static func scale(_ a: UnsafePointer<Float>, by weight: Float, into out: UnsafeMutablePointer<Float>, count: Int) {
        let lanes = count & ~7
        var x = 0
        while x < lanes {
            let v = UnsafeRawPointer(a + x).loadUnaligned(as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(out + x).storeBytes(of: v * weight, as: SIMD8<Float>.self)
            x += 8
        }
        while x < count { out[x] = weight * a[x]; x += 1 }
    }

    /// `out = out + weight · (a + b)`.
    @inline(__always)
    static func accumulate(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, weight: Float,
                           into out: UnsafeMutablePointer<Float>, count: Int) {
        let lanes = count & ~7
        var x = 0
        while x < lanes {
            let va = UnsafeRawPointer(a + x).loadUnaligned(as: SIMD8<Float>.self)
            let vb = UnsafeRawPointer(b + x).loadUnaligned(as: SIMD8<Float>.self)
            let vo = UnsafeRawPointer(out + x).loadUnaligned(as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(out + x).storeBytes(of: vo + (va + vb) * weight, as: SIMD8<Float>.self)
            x += 8
        }
        while x < count { out[x] = out[x] + weight * (a[x] + b[x]); x += 1 }
    }
}
