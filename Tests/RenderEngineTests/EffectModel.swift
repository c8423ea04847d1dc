import Foundation

/// An independent model of the SDK's 17 visual effects, written from docs/filters.md and
/// the GPUImage3 shaders' formulas in `Double` with Foundation's math — no code of the
/// engine (no tables, no separable tricks except where the maths is exactly separable).
struct EffectModel {
    typealias Planes = FilterModel.Planes
    let width: Int
    let height: Int
    /// Pixels of this picture per pixel of the rendered frame (thumbnails are smaller).
    var scale = 1.0

    /// (actual at slider 0, actual at slider 100) as docs/filters.md gives them.
    static let ranges: [String: (Double, Double)] = [
        "pixellate": (0, 0.03), "falseColor": (0, 1), "luminanceThreshold": (0.2, 0.5), "sketch": (0.2, 1),
        "polkaDot": (0, 0.05), "halftone": (0.004, 0.01), "sepiaTone": (0, 1), "toon": (1, 0.1), "tiltShift": (0.4, 0),
        "swirl": (0, 1), "bulge": (0, 0.3), "cgaColorspace": (0, 1), "pinch": (-2, 0.5), "edgeDetection": (0, 1.5),
        "sphereRefraction": (0, 0.25), "gaussianBlur": (0, 15), "stretchDistortion": (0, 0.5),
    ]
    static var types: [String] { ranges.keys.sorted() }

    static func actual(_ type: String, _ n: Double) -> Double {
        let (lo, hi) = ranges[type]!
        return lo + n / 100 * (hi - lo)
    }

    var aspect: Double { Double(height) / Double(width) }
    func uv(_ x: Int, _ y: Int) -> (Double, Double) { ((Double(x) + 0.5) / Double(width), (Double(y) + 0.5) / Double(height)) }
    func read(_ p: Planes, _ u: Double, _ v: Double) -> [Double] {
        FilterModel(width: width, height: height).sample(p, u * Double(width), v * Double(height))
    }
    static func luma(_ c: [Double]) -> Double { FilterModel.luminance(c) }
    static func mix(_ x: Double, _ y: Double, _ t: Double) -> Double { x + (y - x) * t }
    static func modulo(_ x: Double, _ y: Double) -> Double { x - y * floor(x / y) }
    static func smooth(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
        guard e1 > e0 else { return x < e0 ? 0 : 1 }
        let t = min(max((x - e0) / (e1 - e0), 0), 1)
        return t * t * (3 - 2 * t)
    }

    func apply(_ type: String, _ n: Double, to p: Planes) -> Planes {
        let a = Self.actual(type, n)
        switch type {
        case "sketch", "edgeDetection", "toon": return sobelEffect(type, a, p)
        case "gaussianBlur": return gaussian(p, sigma: a * scale)
        case "tiltShift": return tiltShift(p, a)
        default: break
        }
        var out = p
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x
                let c = [p[0][i], p[1][i], p[2][i]]
                let (u, v) = uv(x, y)
                let r = pixel(type, a, c, u, v, p).map(FilterModel.clamp)
                for k in 0..<3 { out[k][i] = r[k] }
            }
        }
        return out
    }

    /// The cell centre of GPUImage's pixellate family: width max(w, 0.01), square in pixels.
    func cellCentre(_ w: Double, _ u: Double, _ v: Double) -> (Double, Double, Double) {
        let du = max(w, 0.01), dv = du / aspect
        return (u - Self.modulo(u, du) + du / 2, v - Self.modulo(v, dv) + dv / 2, du)
    }

    /// Distance in units of the width, v stretched about the centre by the aspect ratio.
    func squareDistance(_ u0: Double, _ v0: Double, _ u1: Double, _ v1: Double) -> Double {
        let dv = (v0 - v1) * aspect
        return ((u0 - u1) * (u0 - u1) + dv * dv).squareRoot()
    }

    func pixel(_ type: String, _ a: Double, _ c: [Double], _ u: Double, _ v: Double, _ p: Planes) -> [Double] {
        switch type {
        case "pixellate":
            let (cu, cv, _) = cellCentre(a, u, v)
            return read(p, cu, cv)
        case "polkaDot":
            let (cu, cv, w) = cellCentre(a, u, v)
            return squareDistance(cu, cv, u, v) <= w * 0.5 * 0.9 ? c : [0, 0, 0]
        case "halftone":
            let (cu, cv, w) = cellCentre(a, u, v)
            let radius = w * 0.5 * (1 - Self.luma(read(p, cu, cv)))
            let white: Double = squareDistance(cu, cv, u, v) <= radius ? 0 : 1
            return [white, white, white]
        case "falseColor":
            let l = Self.luma(c)
            return [Self.mix(c[0], l, a), Self.mix(c[1], 0, a), Self.mix(c[2], 0.5 * (1 - l), a)]
        case "luminanceThreshold":
            let white: Double = Self.luma(c) >= a ? 1 : 0
            return [white, white, white]
        case "sepiaTone":
            let m = [[0.3588, 0.7044, 0.1368], [0.2990, 0.5870, 0.1140], [0.2392, 0.4696, 0.0912]]
            return (0..<3).map { k in Self.mix(c[k], m[k][0] * c[0] + m[k][1] * c[1] + m[k][2] * c[2], a) }
        case "cgaColorspace":
            let s = read(p, u - Self.modulo(u, 1.0 / 200), v - Self.modulo(v, 1.0 / 320))
            let palette: [[Double]] = [[0, 0, 0], [1, 1, 1], [85.0 / 255, 1, 1], [1, 85.0 / 255, 1]]
            func distance(_ q: [Double]) -> Double {
                var sum = 0.0
                for k in 0..<3 { sum += (q[k] - s[k]) * (q[k] - s[k]) }
                return sum
            }
            // The first of the palette's order wins a tie, as the shader's chain of ifs does.
            var nearest = palette[0]
            for colour in palette.dropFirst() where distance(colour) < distance(nearest) { nearest = colour }
            return (0..<3).map { Self.mix(c[$0], nearest[$0], a) }
        case "swirl":
            let (x, y) = (u - 0.5, v - 0.5), d = (x * x + y * y).squareRoot()
            guard d < 0.5 else { return c }
            let theta = pow((0.5 - d) / 0.5, 2) * a * 8
            return read(p, x * cos(theta) - y * sin(theta) + 0.5, x * sin(theta) + y * cos(theta) + 0.5)
        case "bulge":
            let d = squareDistance(u, v, 0.5, 0.5)
            guard d < 0.25 else { return c }
            let f = pow(1 - (0.25 - d) / 0.25 * a, 2)
            return read(p, (u - 0.5) * f + 0.5, (v - 0.5) * f + 0.5)
        case "pinch":
            let d = squareDistance(u, v, 0.5, 0.5)
            guard d < 0.5 else { return c }
            let f = 1 + (0.5 - d) / 0.5 * a
            return read(p, (u - 0.5) * f + 0.5, (v - 0.5) * f + 0.5)
        case "sphereRefraction":
            let x = u - 0.5, y = (v - 0.5) * aspect, d = (x * x + y * y).squareRoot()
            guard a > 0, d <= a else { return [0, 0, 0] }
            let depth = a * (1 - (d / a) * (d / a)).squareRoot()
            let len = (x * x + y * y + depth * depth).squareRoot()
            let normal = [x / len, y / len, depth / len]
            // GLSL refract(I, N, eta) with I = (0, 0, -1).
            let eta = 0.71, dotNI = -normal[2]
            let k = 1 - eta * eta * (1 - dotNI * dotNI)
            let r = k < 0 ? [0.0, 0, 0] : [0, 0, -eta].enumerated().map { $0.element - (eta * dotNI + k.squareRoot()) * normal[$0.offset] }
            return read(p, (r[0] + 1) / 2, (r[1] + 1) / 2)
        case "stretchDistortion":
            func stretch(_ q: Double) -> Double {
                let m = abs(q)
                return (q < 0 ? -1 : 1) * (0.5 * m + 0.5 * Self.smooth(0.25, 0.5, m) * m)
            }
            let centre = 2 * a - 1
            let x = stretch(2 * u - 1 - centre) + centre, y = stretch(2 * v - 1 - centre) + centre
            return read(p, x / 2 + 0.5, y / 2 + 0.5)
        default:
            fatalError("no model for \(type)")
        }
    }

    /// GPUImage's 3×3 Sobel on luminance, neighbours `scale` pixels away (bilinear).
    func sobelEffect(_ type: String, _ a: Double, _ p: Planes) -> Planes {
        let l = [(0..<(width * height)).map { Self.luma([p[0][$0], p[1][$0], p[2][$0]]) }]
        let model = FilterModel(width: width, height: height)
        var out = p
        for y in 0..<height {
            for x in 0..<width {
                func at(_ dx: Double, _ dy: Double) -> Double {
                    model.sample(l, Double(x) + 0.5 + dx * scale, Double(y) + 0.5 + dy * scale)[0]
                }
                let h = -at(-1, -1) - 2 * at(0, -1) - at(1, -1) + at(-1, 1) + 2 * at(0, 1) + at(1, 1)
                let v = -at(-1, 1) - 2 * at(-1, 0) - at(-1, -1) + at(1, 1) + 2 * at(1, 0) + at(1, -1)
                let m = (h * h + v * v).squareRoot()
                let i = y * width + x
                for k in 0..<3 {
                    switch type {
                    case "sketch": out[k][i] = FilterModel.clamp(1 - m * a)
                    case "edgeDetection": out[k][i] = FilterModel.clamp(m * a)
                    default: out[k][i] = m < a ? floor(p[k][i] * 10 + 0.5) / 10 : 0
                    }
                }
            }
        }
        return out
    }

    /// The exact Gaussian (to 4σ, normalised), edges clamped; exact as a product of 1-D passes.
    func gaussian(_ p: Planes, sigma: Double) -> Planes {
        let radius = Int(ceil(4 * sigma))
        let raw = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        let weights = raw.map { $0 / total }
        return p.map { plane in
            var across = plane
            for y in 0..<height {
                for x in 0..<width {
                    across[y * width + x] = (-radius...radius).reduce(0.0) { sum, k in
                        sum + weights[k + radius] * plane[y * width + min(max(x + k, 0), width - 1)]
                    }
                }
            }
            var out = across
            for y in 0..<height {
                for x in 0..<width {
                    out[y * width + x] = (-radius...radius).reduce(0.0) { sum, k in
                        sum + weights[k + radius] * across[min(max(y + k, 0), height - 1) * width + x]
                    }
                }
            }
            return out
        }
    }

    func tiltShift(_ p: Planes, _ fallOff: Double) -> Planes {
        let blurred = gaussian(p, sigma: 7 * scale)
        var out = p
        for y in 0..<height {
            let v = (Double(y) + 0.5) / Double(height)
            let t = min(max(1 - Self.smooth(0.4 - fallOff, 0.4, v) + Self.smooth(0.6, 0.6 + fallOff, v), 0), 1)
            for x in 0..<width {
                for k in 0..<3 { out[k][y * width + x] = Self.mix(p[k][y * width + x], blurred[k][y * width + x], t) }
            }
        }
        return out
    }
}
