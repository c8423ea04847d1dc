import Foundation
import ReelTestSupport
import Testing

/// Colour filters through the whole video path (decode → filters → x264 → mux), and a
/// chain ending in a `.cube` LUT, against docs/filters.md's formulas applied here to the
/// source frames as ffmpeg decodes them. Every filter type alone: RenderEngineTests.
@Suite struct RenderFilterTests {
    /// A test look: a smooth, clearly non-linear map, sampled on a 9-point grid.
    static func lookFunction(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
        (min(1, 0.1 + 0.9 * r * r), 0.5 * g + 0.5 * sqrt(g) * b, 1 - 0.8 * b)
    }
    static let lutSize = 9

    static func cubeText() -> String {
        var lines = ["LUT_3D_SIZE \(lutSize)"]
        for bi in 0..<lutSize { for gi in 0..<lutSize { for ri in 0..<lutSize {
            let n = Double(lutSize - 1)
            let (r, g, b) = lookFunction(Double(ri) / n, Double(gi) / n, Double(bi) / n)
            lines.append(String(format: "%.6f %.6f %.6f", r, g, b))
        } } }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Trilinear interpolation of the sampled look, as a .cube reader must do.
    static func lut(_ rgb: [Double]) -> [Double] {
        let n = Double(lutSize - 1)
        func grid(_ ri: Int, _ gi: Int, _ bi: Int) -> [Double] {
            let (r, g, b) = lookFunction(Double(ri) / n, Double(gi) / n, Double(bi) / n)
            // As written to the file, 6 decimals.
            return [r, g, b].map { ($0 * 1e6).rounded() / 1e6 }
        }
        let t = rgb.map { min(max($0, 0), 1) * n }
        let i = t.map { min(Int($0), lutSize - 2) }
        let f = zip(t, i).map { $0 - Double($1) }
        var out = [0.0, 0.0, 0.0]
        for corner in 0..<8 {
            let (dr, dg, db) = (corner & 1, (corner >> 1) & 1, (corner >> 2) & 1)
            let w = (dr == 1 ? f[0] : 1 - f[0]) * (dg == 1 ? f[1] : 1 - f[1]) * (db == 1 ? f[2] : 1 - f[2])
            let v = grid(i[0] + dr, i[1] + dg, i[2] + db)
            for c in 0..<3 { out[c] += w * v[c] }
        }
        return out
    }

    /// docs/filters.md, on RGB in [0, 1], clamped after each filter; adjust sliders are
    /// piecewise-linear around the identity.
    static func apply(_ filter: (String, Double), to rgb: [Double]) -> [Double] {
        let (type, n) = filter
        let clamp = { (x: Double) in min(max(x, 0), 1) }
        switch type {
        case "brightness": return rgb.map { clamp($0 + n * 0.18) }
        case "contrast": let a = 1 + n * (n < 0 ? 0.7 : 0.8); return rgb.map { clamp(($0 - 0.5) * a + 0.5) }
        case "saturation":
            let a = 1 + n * (n < 0 ? 1 : 1.3)
            let lum = 0.2125 * rgb[0] + 0.7154 * rgb[1] + 0.0721 * rgb[2]
            return rgb.map { clamp(lum * (1 - a) + $0 * a) }
        case "exposure": return rgb.map { clamp($0 * pow(2, n)) }
        case "lut":
            let a = n / 100
            let looked = lut(rgb)
            return zip(rgb, looked).map { clamp($0 * (1 - a) + $1 * a) }
        default: fatalError("no formula for \(type)")
        }
    }

    static let cases: [[(String, Double)]] = [
        [("brightness", 0.5)], [("brightness", -0.7)], [("contrast", 0.8)], [("contrast", -0.5)],
        [("saturation", 0.9)], [("saturation", -1)], [("exposure", 0.6)], [("exposure", -0.4)],
        [("brightness", 0.2), ("contrast", 0.4), ("saturation", 0.5), ("lut", 80)],
        [("saturation", -0.3), ("exposure", 0.3), ("lut", 100), ("contrast", 0.2)],
    ]

    @Test(arguments: cases.indices)
    func filterMatchesTheFormula(index: Int) throws {
        let chain = Self.cases[index]
        let fx = try RenderFixture("filter\(index)")
        try fx.sample("m.mp4", ["--duration", "1", "--size", "160x96", "--no-audio", "--pattern", "gradient"])
        try TestEnvironment.write(Self.cubeText(), to: "look.cube", in: fx.dir)
        let filters = chain.map { type, n in
            type == "lut" ? #"{"type": "lut", "file": "look.cube", "normalizedIntensity": \#(n)}"# : #"{"type": "\#(type)", "normalizedIntensity": \#(n)}"#
        }.joined(separator: ",")
        try fx.session(#"{"video": {"videoSegments": [{"source": "m.mp4", "trimDuration": 0.3, "filters": [\#(filters)]}]}}"#)
        let out = try fx.rendered("s.json", to: "out.mp4", ["--crf", "4"])
        let sources = try DecodedMedia.rgbFrames(fx.path("m.mp4"), width: 160, height: 96).prefix(9)
        let outputs = try DecodedMedia.rgbFrames(out, width: 160, height: 96)
        #expect(outputs.count == 9)
        var expected: [UInt8] = [], actual: [UInt8] = []
        for (source, output) in zip(sources, outputs) {
            for p in stride(from: 0, to: source.count, by: 3) {
                var rgb = (0..<3).map { Double(source[p + $0]) / 255 }
                for filter in chain { rgb = Self.apply(filter, to: rgb) }
                expected += rgb.map { UInt8(($0 * 255).rounded()) }
            }
            actual += output
        }
        let psnr = Measure.psnr(expected, actual)
        #expect(psnr >= 40, "PSNR \(psnr) dB for \(chain)")
        // And the filter did something: the output is far from the unfiltered source.
        #expect(Measure.psnr(Array(sources.joined()), actual) < psnr)
    }
}
