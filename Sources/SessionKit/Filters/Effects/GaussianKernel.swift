/// A separable Gaussian blur of standard deviation `sigma` pixels, edges clamped
/// (docs/filters.md, "gaussianBlur"): weights `exp(−k²/2σ²)` for |k| ≤ ⌈3σ⌉, normalised
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
                let centre = s + y * w, w0 = wk[0]
                for x in 0..<w { out[x] = w0 * centre[x] }
                for k in 1...radius {
                    let above = s + max(y - k, 0) * w, below = s + min(y + k, h - 1) * w, wt = wk[k]
                    for x in 0..<w { out[x] = out[x] + wt * (above[x] + below[x]) }
                }
            }
            // Horizontal, in place: each row copied with R clamped pixels on either side.
            for y in 0..<h {
                let row = d + y * w
                let first = row[0], last = row[w - 1]
                for i in 0..<radius { p[i] = first; p[radius + w + i] = last }
                (p + radius).update(from: row, count: w)
                let centre = p + radius, w0 = wk[0]
                for x in 0..<w { row[x] = w0 * centre[x] }
                for k in 1...radius {
                    let left = centre - k, right = centre + k, wt = wk[k]
                    for x in 0..<w { row[x] = row[x] + wt * (left[x] + right[x]) }
                }
            }
        } } } }
    }
}
