import Foundation
import Testing
@testable import SessionKit

/// How the engine arranges the effects' work (docs/filters.md, "Visual effects": the
/// sample maps of distortions, wide blurs at half resolution), checked against plain
/// computations written here.
@Suite struct EffectPassTests {
    /// A picture of seeded pseudo-random values, odd-sized so edges and chroma-like
    /// half sizes are exercised.
    static func noise(width: Int = 37, height: Int = 23, seed: UInt64 = 7) -> PlanarPicture {
        var state = seed
        func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24)
        }
        var p = PlanarPicture(width: width, height: height)
        for i in 0..<(width * height) { (p.r[i], p.g[i], p.b[i]) = (next(), next(), next()) }
        return p
    }

    static let distortions: [any Distortion] = [
        Swirl.Operation(angle: 1), Bulge.Operation(scale: 0.3), Pinch.Operation(scale: -1.5),
        SphereRefraction.Operation(radius: 0.25), StretchDistortion.Operation(centre: 0.3),
    ]

    /// Bilinear read at pixel coordinate (x, y), edges clamped, in Double: the pixel model.
    static func bilinear(_ plane: [Float], _ w: Int, _ h: Int, _ x: Double, _ y: Double) -> Double {
        let fx = min(max(x - 0.5, 0), Double(w - 1)), fy = min(max(y - 0.5, 0), Double(h - 1))
        let x0 = Int(fx), y0 = Int(fy), x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
        let tx = fx - Double(x0), ty = fy - Double(y0)
        func at(_ x: Int, _ y: Int) -> Double { Double(plane[y * w + x]) }
        return (at(x0, y0) * (1 - tx) + at(x1, y0) * tx) * (1 - ty) + (at(x0, y1) * (1 - tx) + at(x1, y1) * tx) * ty
    }

    @Test(arguments: 0..<5)
    func aSampleMapReadsWhereItsDistortionPoints(index: Int) {
        let distortion = Self.distortions[index]
        let source = Self.noise(), w = source.width, h = source.height
        var out = PlanarPicture(width: w, height: h)
        SampleMap(distortion, width: w, height: h).apply(source, into: &out)
        let point = distortion.sourcePoints(width: w, height: h)
        var worst = 0.0
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                guard let (u, v) = point((Float(x) + 0.5) / Float(w), (Float(y) + 0.5) / Float(h)) else {
                    #expect(out.r[i] == 0 && out.g[i] == 0 && out.b[i] == 0, "pixel (\(x), \(y)) should be black")
                    continue
                }
                let sx = Double(u) * Double(w), sy = Double(v) * Double(h)
                worst = max(worst, abs(Double(out.r[i]) - Self.bilinear(source.r, w, h, sx, sy)),
                            abs(Double(out.g[i]) - Self.bilinear(source.g, w, h, sx, sy)),
                            abs(Double(out.b[i]) - Self.bilinear(source.b, w, h, sx, sy)))
            }
        }
        #expect(worst < 1e-5, "\(type(of: distortion)): largest difference \(worst)")
    }

    /// A chain's first distortion reads the packed 8-bit frame; later ones read planes.
    @Test(arguments: 0..<5)
    func readingPackedBytesGivesTheBitsOfReadingPlanes(index: Int) {
        let w = 41, h = 19, stride = 3 * w + 5
        var bytes = [UInt8](repeating: 0, count: stride * h)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 2654435761 >> 7) }
        let leading = (0..<256).map { Float($0) / 255 }
        var planes = PlanarPicture(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let p = y * stride + 3 * x
                (planes.r[y * w + x], planes.g[y * w + x], planes.b[y * w + x]) =
                    (leading[Int(bytes[p])], leading[Int(bytes[p + 1])], leading[Int(bytes[p + 2])])
            }
        }
        let map = SampleMap(Self.distortions[index], width: w, height: h)
        var fromPlanes = PlanarPicture(width: w, height: h), fromBytes = PlanarPicture(width: w, height: h)
        map.apply(planes, into: &fromPlanes)
        bytes.withUnsafeBufferPointer { b in leading.withUnsafeBufferPointer { l in
            map.apply(packed: b.baseAddress!, stride: stride, leading: l.baseAddress!, into: &fromBytes)
        } }
        #expect(fromBytes == fromPlanes)
    }

    /// The full Gaussian of σ in Double, to ⌈4σ⌉, edges clamped.
    static func gaussian(_ p: PlanarPicture, sigma: Double) -> [[Double]] {
        let radius = Int((4 * sigma).rounded(.up)), w = p.width, h = p.height
        let raw = (-radius...radius).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        return [p.r, p.g, p.b].map { plane in
            var across = [Double](repeating: 0, count: w * h), out = across
            for y in 0..<h {
                for x in 0..<w {
                    across[y * w + x] = (-radius...radius).reduce(0) { $0 + raw[$1 + radius] / total * Double(plane[y * w + min(max(x + $1, 0), w - 1)]) }
                }
            }
            for y in 0..<h {
                for x in 0..<w {
                    out[y * w + x] = (-radius...radius).reduce(0) { $0 + raw[$1 + radius] / total * across[min(max(y + $1, 0), h - 1) * w + x] }
                }
            }
            return out
        }
    }

    /// White noise is the hardest picture for a blur computed at half resolution (all its
    /// detail is at the finest scale); measured against the full Gaussian in Double.
    @Test(arguments: [6.0, 7, 15])
    func aWideBlurAtHalfResolutionIsTheGaussian(sigma: Double) {
        let source = Self.noise(width: 97, height: 61, seed: 3)
        var out = PlanarPicture(width: source.width, height: source.height)
        GaussianKernel(sigma: sigma).blur(source, into: &out)
        let model = Self.gaussian(source, sigma: sigma)
        var worst = 0.0, squares = 0.0, count = 0.0
        for (plane, expected) in zip([out.r, out.g, out.b], model) {
            for i in plane.indices {
                let difference = Double(plane[i]) - expected[i]
                worst = max(worst, abs(difference))
                squares += difference * difference
                count += 1
            }
        }
        let rms = (squares / count).squareRoot()
        // Within 1.5 of an 8-bit step anywhere and under half of one on average (RMS): most
        // pixels round to the same 8-bit value as the full kernel gives.
        #expect(worst < 1.5 / 255, "σ \(sigma): largest difference \(worst * 255) of an 8-bit step")
        #expect(rms < 0.5 / 255, "σ \(sigma): RMS difference \(rms * 255) of an 8-bit step")
    }

    @Test func aNarrowBlurRunsTheFullKernel() {
        let source = Self.noise(width: 31, height: 17, seed: 5)
        var out = PlanarPicture(width: source.width, height: source.height)
        GaussianKernel(sigma: 2).blur(source, into: &out)
        let model = Self.gaussian(source, sigma: 2)
        let worst = zip([out.r, out.g, out.b], model).map { plane, expected in
            plane.indices.map { abs(Double(plane[$0]) - expected[$0]) }.max() ?? 0
        }.max() ?? 0
        // The kernel stops at 3σ (the model at 4σ): about 0.3 % of the weight, renormalised.
        #expect(worst < 0.01, "largest difference \(worst * 255) of an 8-bit step")
    }
}
