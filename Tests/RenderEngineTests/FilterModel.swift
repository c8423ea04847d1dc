import Foundation

/// An independent model of every filter of docs/filters.md, written from the formulas in
/// `Double` with Foundation's math — no code of the engine. Pictures are three planes in
/// [0, 1]; each filter's output is clamped.
struct FilterModel {
    typealias Planes = [[Double]]
    let width: Int
    let height: Int

    /// (low, identity, high) of the Adjust tab's filters, as docs/filters.md gives them.
    static let adjust: [String: (Double, Double, Double)] = [
        "brightness": (-0.18, 0, 0.18), "contrast": (0.3, 1, 1.8), "saturation": (0, 1, 2.3),
        "exposure": (-1, 0, 1), "vibrance": (-1, 0, 1), "hue": (-Double.pi, 0, Double.pi),
        "warmth": (3000, 5000, 11000), "sharpness": (-1, 0, 2), "gamma": (0.5, 1, 2),
    ]
    /// Slider 0 … 100 onto 0 … max.
    static let percent: [String: Double] = [
        "highlights": 1, "shadows": 1, "vignette": 1, "lookup": 1,
        "wilshire": 0.6, "montana": 1, "sanVicente": 1, "melrose": 0.9, "sepulveda": 1, "laCienega": 1,
        "abbotKinney": 0.9, "mulholland": 1, "sunset": 1,
    ]

    static func actual(_ type: String, _ n: Double) -> Double {
        if let (lo, mid, hi) = adjust[type] { return n < 0 ? mid + n * (mid - lo) : mid + n * (hi - mid) }
        if let top = percent[type] { return n / 100 * top }
        return n   // position filters: degrees
    }

    static func clamp(_ x: Double) -> Double { min(max(x, 0), 1) }
    static func mix(_ x: Double, _ y: Double, _ t: Double) -> Double { x + (y - x) * t }
    static func luminance(_ c: [Double]) -> Double { 0.2125 * c[0] + 0.7154 * c[1] + 0.0721 * c[2] }

    /// Applies `type` at slider `n`; `lookup` is the 512×512 RGB lattice for lookups and looks.
    func apply(_ type: String, _ n: Double, to p: Planes, lookup: [UInt8]? = nil) -> Planes {
        let a = Self.actual(type, n)
        switch type {
        case "sharpness": return sharpen(p, a)
        case "straighten": return straighten(p, a)
        case "horizontalPerspective": return perspective(p, a, vertical: false)
        case "verticalPerspective": return perspective(p, a, vertical: true)
        default: break
        }
        var out = p
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x
                let c = [p[0][i], p[1][i], p[2][i]]
                let r = pixel(type, a, c, x: x, y: y, lookup: lookup).map(Self.clamp)
                for k in 0..<3 { out[k][i] = r[k] }
            }
        }
        return out
    }

    func pixel(_ type: String, _ a: Double, _ c: [Double], x: Int, y: Int, lookup: [UInt8]?) -> [Double] {
        switch type {
        case "brightness": return c.map { $0 + a }
        case "contrast": return c.map { ($0 - 0.5) * a + 0.5 }
        case "saturation": let l = Self.luminance(c); return c.map { Self.mix(l, $0, a) }
        case "exposure": return c.map { $0 * pow(2, a) }
        case "gamma": return c.map { pow($0, a) }
        case "vibrance":
            let average = (c[0] + c[1] + c[2]) / 3, mx = c.max()!
            let t = (mx - average) * (-3 * a)
            return c.map { Self.mix($0, mx, t) }
        case "hue":
            let yy = 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
            var i = 0.595716 * c[0] - 0.274453 * c[1] - 0.321263 * c[2]
            var q = 0.211456 * c[0] - 0.522591 * c[1] + 0.31135 * c[2]
            let h = atan2(q, i) - a, chroma = (i * i + q * q).squareRoot()
            (i, q) = (chroma * cos(h), chroma * sin(h))
            return [yy + 0.9563 * i + 0.6210 * q, yy - 0.2721 * i - 0.6474 * q, yy - 1.1070 * i + 1.7046 * q]
        case "warmth":
            let t = a < 5000 ? 0.0004 * (a - 5000) : 0.00006 * (a - 5000)
            let yy = 0.299 * c[0] + 0.596 * c[1] + 0.212 * c[2]
            let i = 0.587 * c[0] - 0.274 * c[1] - 0.523 * c[2]
            let q = min(max(0.114 * c[0] - 0.322 * c[1] + 0.311 * c[2], -0.5226), 0.5226)
            let rgb = [yy + i + q, 0.956 * yy - 0.272 * i - 1.105 * q, 0.621 * yy - 0.647 * i + 1.702 * q]
            let w = [0.93, 0.54, 0.0]
            return (0..<3).map { k in
                let v = rgb[k]
                let overlay = v < 0.5 ? 2 * v * w[k] : 1 - 2 * (1 - v) * (1 - w[k])
                return Self.mix(v, overlay, t)
            }
        case "highlights":
            let l = Self.luminance(c)
            let hi = min(max(1 - (pow(1 - l, 1 / (2 - a)) - 0.8 * pow(1 - l, 2 / (2 - a))) - l, -1), 0)
            return l == 0 ? [0, 0, 0] : c.map { $0 * (l + hi) / l }
        case "shadows":
            let l = Self.luminance(c)
            let sh = min(max(pow(l, 1 / (a + 1)) - 0.76 * pow(l, 2 / (a + 1)) - l, 0), 1)
            return l == 0 ? [0, 0, 0] : c.map { $0 * (l + sh) / l }
        case "vignette":
            let u = (Double(x) + 0.5) / Double(width), v = (Double(y) + 0.5) / Double(height)
            let d = ((u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5)).squareRoot()
            let t = min(max((d - 0.3) / 0.5, 0), 1)
            let k = a * t * t * (3 - 2 * t)
            return c.map { Self.mix($0, 0, k) }
        default:
            // lookup and the named looks: GPUImage's lookup with nearest red/green.
            guard let lattice = lookup else { fatalError("no model for \(type)") }
            let bc = c[2] * 63, q1 = Int(bc.rounded(.down)), q2 = Int(bc.rounded(.up)), f = bc - Double(q1)
            let px = Int((63 * c[0] + 0.5).rounded(.down)), py = Int((63 * c[1] + 0.5).rounded(.down))
            func tile(_ q: Int, _ k: Int) -> Double {
                let ix = (q % 8) * 64 + px, iy = (q / 8) * 64 + py
                return Double(lattice[(iy * 512 + ix) * 3 + k]) / 255
            }
            return (0..<3).map { k in Self.mix(c[k], Self.mix(tile(q1, k), tile(q2, k), f), a) }
        }
    }

    func sharpen(_ p: Planes, _ a: Double) -> Planes {
        p.map { plane in
            var out = plane
            for y in 0..<height {
                for x in 0..<width {
                    func at(_ xx: Int, _ yy: Int) -> Double { plane[min(max(yy, 0), height - 1) * width + min(max(xx, 0), width - 1)] }
                    let around = at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1)
                    out[y * width + x] = Self.clamp(at(x, y) * (1 + 4 * a) - a * around)
                }
            }
            return out
        }
    }

    /// Bilinear, pixel centres at +½, edges clamped.
    func sample(_ p: Planes, _ x: Double, _ y: Double) -> [Double] {
        let fx = min(max(x - 0.5, 0), Double(width - 1)), fy = min(max(y - 0.5, 0), Double(height - 1))
        let x0 = Int(fx), y0 = Int(fy), x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let tx = fx - Double(x0), ty = fy - Double(y0)
        return p.map { plane in
            let top = Self.mix(plane[y0 * width + x0], plane[y0 * width + x1], tx)
            let bottom = Self.mix(plane[y1 * width + x0], plane[y1 * width + x1], tx)
            return Self.mix(top, bottom, ty)
        }
    }

    func warp(_ p: Planes, _ map: (Double, Double) -> (Double, Double)) -> Planes {
        var out = p
        let cx = Double(width) / 2, cy = Double(height) / 2
        for y in 0..<height {
            for x in 0..<width {
                let (sx, sy) = map(Double(x) + 0.5 - cx, Double(y) + 0.5 - cy)
                let v = sample(p, sx + cx, sy + cy)
                for k in 0..<3 { out[k][y * width + x] = v[k] }
            }
        }
        return out
    }

    func straighten(_ p: Planes, _ degrees: Double) -> Planes {
        let t = degrees * Double.pi / 180, w = Double(width), h = Double(height)
        let s = max((w * cos(abs(t)) + h * sin(abs(t))) / w, (w * sin(abs(t)) + h * cos(abs(t))) / h)
        // Shown = source turned clockwise (y down) and enlarged; go back: shrink, turn counter-clockwise.
        return warp(p) { x, y in
            let (u, v) = (x / s, y / s)
            return (u * cos(t) + v * sin(t), -u * sin(t) + v * cos(t))
        }
    }

    /// The plane turned about its centre line, camera at the diagonal distance, then enlarged
    /// by the least factor (found by bisection here) that shows no outside of the picture.
    func perspective(_ p: Planes, _ degrees: Double, vertical: Bool) -> Planes {
        let t = degrees * Double.pi / 180, w = Double(width), h = Double(height)
        let d = (w * w + h * h).squareRoot()
        // Output point (before enlarging) → plane point, inverting x' = D X cos/(D + X sin), y' = D Y/(D + X sin).
        func back(_ x: Double, _ y: Double) -> (Double, Double) {
            let (along, across) = vertical ? (y, x) : (x, y)
            let a = along * d / (d * cos(t) - along * sin(t))
            let b = across * (d + a * sin(t)) / d
            return vertical ? (b, a) : (a, b)
        }
        func covers(_ s: Double) -> Bool {
            [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)].allSatisfy { corner in
                let (x, y) = back(corner.0 / s, corner.1 / s)
                return abs(x) <= w / 2 + 1e-9 && abs(y) <= h / 2 + 1e-9
            }
        }
        var lo = 0.5, hi = 4.0
        for _ in 0..<80 { let mid = (lo + hi) / 2; if covers(mid) { hi = mid } else { lo = mid } }
        return warp(p) { x, y in back(x / hi, y / hi) }
    }
}
