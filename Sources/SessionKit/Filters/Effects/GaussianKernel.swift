/// A separable Gaussian blur of standard deviation `sigma` pixels, edges clamped
/// (docs/filters.md, "Visual effects"): weights `exp(−k²/2σ²)` for |k| ≤ ⌈3σ⌉, normalised
/// to sum 1. The vertical pass reads whole rows and the horizontal one a padded copy of
/// each row, taps paired by symmetry, 8 outputs at a time summed in a register.
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

    /// From this σ on, the blur runs at half resolution (docs/filters.md, "Visual effects").
    static let halfResolutionSigma = 6.0

    /// Blurs `source` into `destination` (same size), all three planes. A wide blur runs
    /// on the picture averaged 2×2 with σ′ = √(σ² − 1)/2 and is read back bilinearly: the
    /// average adds ¼ pixel² of variance and the bilinear read ¾, so the result is the
    /// Gaussian of σ, within a fraction of a code value, for an eighth of the arithmetic
    /// (a quarter of the pixels, half the taps). The half picture carries a margin of the
    /// edge pixels repeated as wide as its kernel, so the edges are clamped as the full
    /// kernel clamps them (each edge pixel alone, not averaged with its neighbour).
    func blur(_ source: PlanarPicture, into destination: inout PlanarPicture) {
        guard sigma < Self.halfResolutionSigma || source.width < 4 || source.height < 4 else {
            let kernel = GaussianKernel(sigma: (sigma * sigma - 1).squareRoot() / 2)
            let half = source.halved(margin: kernel.radius)
            var blurred = PlanarPicture(width: half.width, height: half.height)
            kernel.blurFull(half, into: &blurred)
            blurred.doubled(margin: kernel.radius, into: &destination)
            return
        }
        blurFull(source, into: &destination)
    }

    /// The kernel itself, at the picture's own resolution.
    private func blurFull(_ source: PlanarPicture, into destination: inout PlanarPicture) {
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
            var rows = [UnsafePointer<Float>](repeating: s, count: 2 * radius + 1)
            rows.withUnsafeMutableBufferPointer { rows in
                for y in 0..<h {
                    for k in -radius...radius { rows[k + radius] = s + min(max(y + k, 0), h - 1) * w }
                    Self.convolve(rows: rows.baseAddress.unsafelyUnwrapped + radius, weights: wk, into: d + y * w, count: w)
                }
            }
            // Horizontal, in place: each row copied with R clamped pixels on either side.
            for y in 0..<h {
                let row = d + y * w
                let first = row[0], last = row[w - 1]
                for i in 0..<radius { p[i] = first; p[radius + w + i] = last }
                (p + radius).update(from: row, count: w)
                Self.convolve(row: p + radius, weights: wk, into: row, count: w)
            }
        } } } }
    }

    // Each group of 8 outputs sums all its taps in a register before it is stored, in the
    // order of the scalar definition (w₀·a₀, then + w_k·(a₋k + a₊k) for k = 1 … R), so the
    // bits are those of one tap at a time over whole rows; 8 lanes by hand because the
    // compiler cannot prove the rows apart.

    /// Row `out` from the rows `centre[-R] … centre[R]` (vertical pass).
    @inline(__always)
    static func convolve(rows centre: UnsafePointer<UnsafePointer<Float>>, weights: UnsafeBufferPointer<Float>,
                         into out: UnsafeMutablePointer<Float>, count: Int) {
        let radius = weights.count - 1, lanes = count & ~7
        var x = 0
        while x < lanes {
            var sum = UnsafeRawPointer(centre[0] + x).loadUnaligned(as: SIMD8<Float>.self) * weights[0]
            for k in stride(from: 1, through: radius, by: 1) {
                let a = UnsafeRawPointer(centre[-k] + x).loadUnaligned(as: SIMD8<Float>.self)
                let b = UnsafeRawPointer(centre[k] + x).loadUnaligned(as: SIMD8<Float>.self)
                sum = sum + (a + b) * weights[k]
            }
            UnsafeMutableRawPointer(out + x).storeBytes(of: sum, as: SIMD8<Float>.self)
            x += 8
        }
        while x < count {
            var sum = weights[0] * centre[0][x]
            for k in stride(from: 1, through: radius, by: 1) { sum = sum + weights[k] * (centre[-k][x] + centre[k][x]) }
            out[x] = sum
            x += 1
        }
    }

    /// `out[x]` from `row[x − R] … row[x + R]` (horizontal pass; `row` is padded by R on either side).
    @inline(__always)
    static func convolve(row: UnsafePointer<Float>, weights: UnsafeBufferPointer<Float>,
                         into out: UnsafeMutablePointer<Float>, count: Int) {
        let radius = weights.count - 1, lanes = count & ~7
        var x = 0
        while x < lanes {
            var sum = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD8<Float>.self) * weights[0]
            for k in stride(from: 1, through: radius, by: 1) {
                let a = UnsafeRawPointer(row + x - k).loadUnaligned(as: SIMD8<Float>.self)
                let b = UnsafeRawPointer(row + x + k).loadUnaligned(as: SIMD8<Float>.self)
                sum = sum + (a + b) * weights[k]
            }
            UnsafeMutableRawPointer(out + x).storeBytes(of: sum, as: SIMD8<Float>.self)
            x += 8
        }
        while x < count {
            var sum = weights[0] * row[x]
            for k in stride(from: 1, through: radius, by: 1) { sum = sum + weights[k] * (row[x - k] + row[x + k]) }
            out[x] = sum
            x += 1
        }
    }
}

extension PlanarPicture {
    /// The picture averaged over 2×2 pixels, ⌈W/2⌉×⌈H/2⌉ and `margin` more on every side:
    /// half-pixel i averages pixels 2(i − margin) and 2(i − margin) + 1, clamped to the
    /// picture (so the margin repeats the edge pixels, and an odd last column or row
    /// averages with itself).
    func halved(margin: Int) -> PlanarPicture {
        let w = width, h = height, hw = (width + 1) / 2 + 2 * margin, hh = (height + 1) / 2 + 2 * margin
        var half = PlanarPicture(width: hw, height: hh)
        let columns = (0..<hw).map { i in (min(max(2 * (i - margin), 0), w - 1), min(max(2 * (i - margin) + 1, 0), w - 1)) }
        func halve(_ source: [Float], into out: inout [Float]) {
            source.withUnsafeBufferPointer { s in out.withUnsafeMutableBufferPointer { o in
                for j in 0..<hh {
                    let top = s.baseAddress.unsafelyUnwrapped + min(max(2 * (j - margin), 0), h - 1) * w
                    let bottom = s.baseAddress.unsafelyUnwrapped + min(max(2 * (j - margin) + 1, 0), h - 1) * w
                    for (i, (x0, x1)) in columns.enumerated() {
                        o[j * hw + i] = ((top[x0] + top[x1]) + (bottom[x0] + bottom[x1])) * 0.25
                    }
                }
            } }
        }
        halve(r, into: &half.r)
        halve(g, into: &half.g)
        halve(b, into: &half.b)
        return half
    }

    /// This half-resolution picture (with `margin` half-pixels on every side) read
    /// bilinearly at the centres of `destination`'s pixels: full-resolution pixel x is at
    /// (x + ½)/2 + margin here: the two half-pixels around it weighted ¾ and ¼ —
    /// `PlaneReader`'s arithmetic (across, then down), a row at a time.
    func doubled(margin: Int, into destination: inout PlanarPicture) {
        let w = destination.width, h = destination.height, hw = width
        let columns = (0..<w).map { Self.taps($0, margin: margin, halfCount: hw) }
        // Across: the half-resolution rows the picture reads, at full width.
        let first = Self.taps(0, margin: margin, halfCount: height).0
        let rows = first...Self.taps(h - 1, margin: margin, halfCount: height).1
        var wide = PlanarPicture(width: w, height: rows.count)
        func across(_ source: [Float], into out: inout [Float]) {
            source.withUnsafeBufferPointer { s in out.withUnsafeMutableBufferPointer { o in columns.withUnsafeBufferPointer { columns in
                for j in rows {
                    let row = s.baseAddress.unsafelyUnwrapped + j * hw, to = o.baseAddress.unsafelyUnwrapped + (j - first) * w
                    for x in 0..<w {
                        let (i0, i1, t) = columns[x]
                        to[x] = row[i0] + (row[i1] - row[i0]) * t
                    }
                }
            } } }
        }
        across(r, into: &wide.r)
        across(g, into: &wide.g)
        across(b, into: &wide.b)
        // Down: rows blended whole.
        PlanarPicture.renderRows(from: wide, into: &destination) { reader, y, out in
            let (j0, j1, t) = Self.taps(y, margin: margin, halfCount: height)
            let top = reader.row(j0 - first), bottom = reader.row(j1 - first)
            for x in 0..<w {
                out.set(x, (top.r[x] + (bottom.r[x] - top.r[x]) * t, top.g[x] + (bottom.g[x] - top.g[x]) * t,
                            top.b[x] + (bottom.b[x] - top.b[x]) * t))
            }
        }
    }

    /// The two half-resolution pixels full-resolution pixel `x` blends, and the weight of
    /// the second: `PlaneReader`'s read at (x + ½)/2 + margin, clamped to 0 … `halfCount` − 1.
    @inline(__always)
    static func taps(_ x: Int, margin: Int, halfCount: Int) -> (Int, Int, Float) {
        let f = (Float(x) + 0.5) * 0.5 - 0.5 + Float(margin)
        guard f > 0 else { return (0, 0, 0) }
        let last = halfCount - 1
        guard f < Float(last) else { return (last, last, 0) }
        let i = Int(f)
        return (i, i + 1, f - Float(i))
    }
}
