import Foundation
import ReelTestSupport
import Testing
@testable import RenderEngine
@testable import SessionKit

/// The SDK's 17 visual effects rendered by the engine (image sessions, PNG in and out)
/// against `EffectModel`, at two render sizes (landscape and portrait) and three slider
/// positions. Both sides then take the same 4:2:0 round trip an H.264 output takes, so
/// the bars hold for what a video carries.
@Suite struct EffectRenderTests {
    /// Sizes at which no cell edge of the shaders' grids (multiples of 0.01 … 0.05 of the
    /// width, 1/200 and 1/320 of the picture) lands exactly on a pixel centre, where a
    /// float and a double may break the tie differently: W and H have more factors of 2
    /// than 100 and 160 need (e.g. at 160 rows, (y + ½)/160 is an exact multiple of 1/320).
    static let sizes = [(192, 128), (96, 128)]
    static let positions = [25.0, 60, 100]
    /// Per-pixel effects (36 dB); the neighbourhood and geometric ones (32 dB).
    static let perPixel: Set<String> = ["sepiaTone", "falseColor", "cgaColorspace", "luminanceThreshold"]

    /// Smooth colour gradients with hard-edged shapes: edges for Sobel, detail for warps,
    /// no pixel-level noise (a cell centre a hair away would then pick another colour).
    static func picture(width: Int, height: Int) -> RGBImage {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let u = (Double(x) + 0.5) / Double(width), v = (Double(y) + 0.5) / Double(height)
                var c = [u, v, 0.5 + 0.4 * sin(6 * u + 3 * v)]
                let dx = u - 0.35, dy = (v - 0.4) * Double(height) / Double(width)
                if dx * dx + dy * dy < 0.03 { c = [0.95, 0.85, 0.1] }
                if u > 0.6, u < 0.85, v > 0.55, v < 0.8 { c = [0.1, 0.2, 0.8] }
                if abs(u - v) < 0.04 { c = [0.9, 0.1, 0.3] }
                let i = (y * width + x) * 3
                for k in 0..<3 { bytes[i + k] = UInt8((min(max(c[k], 0), 1) * 255).rounded()) }
            }
        }
        return RGBImage(width: width, height: height, bytes: bytes)
    }

    /// Renders `filters` on `picture` as an image session; returns the output picture.
    static func render(_ filters: [String], picture: RGBImage, in dir: URL) throws -> RGBImage {
        let name = "p\(picture.width)x\(picture.height).png"
        let path = dir.appendingPathComponent(name).path
        if !FileManager.default.fileExists(atPath: path) { try picture.writePNG(to: path) }
        let session = #"{"image": {"source": "\#(name)", "filters": [\#(filters.joined(separator: ","))]}}"#
        let sessionPath = try TestEnvironment.write(session, to: "s-\(UUID().uuidString.prefix(6)).json", in: dir)
        let loaded = try LoadedSession.load(path: sessionPath, looks: nil)
        guard loaded.report.isValid else { throw EngineError("\(loaded.report.problems)") }
        let out = dir.appendingPathComponent("out-\(UUID().uuidString.prefix(6)).png").path
        try ImageRender(loaded: loaded).run(to: out)
        return try RGBImage.readPNG(out, width: picture.width, height: picture.height)
    }

    /// BT.709 limited-range Y′CbCr, chroma averaged over 2×2 and read back bilinearly
    /// (centred siting), quantised to 8 bits on the way, as a 4:2:0 video carries it.
    static func roundTrip420(_ rgb: [UInt8], width: Int, height: Int) -> [UInt8] {
        let n = width * height
        var luma = [Double](repeating: 0, count: n), cb = luma, cr = luma
        for i in 0..<n {
            let r = Double(rgb[i * 3]) / 255, g = Double(rgb[i * 3 + 1]) / 255, b = Double(rgb[i * 3 + 2]) / 255
            let yy = 0.2126 * r + 0.7152 * g + 0.0722 * b
            luma[i] = (16 + 219 * yy).rounded()
            cb[i] = 128 + 224 * (b - yy) / 1.8556
            cr[i] = 128 + 224 * (r - yy) / 1.5748
        }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        func subsample(_ p: [Double]) -> [Double] {
            (0..<(cw * ch)).map { j in
                let (cx, cy) = (j % cw, j / cw)
                var sum = 0.0, count = 0.0
                for y in (2 * cy)..<min(2 * cy + 2, height) { for x in (2 * cx)..<min(2 * cx + 2, width) { sum += p[y * width + x]; count += 1 } }
                return (sum / count).rounded()
            }
        }
        let (scb, scr) = (subsample(cb), subsample(cr))
        func up(_ p: [Double], _ x: Int, _ y: Int) -> Double {
            let fx = min(max((Double(x) + 0.5) / 2 - 0.5, 0), Double(cw - 1)), fy = min(max((Double(y) + 0.5) / 2 - 0.5, 0), Double(ch - 1))
            let x0 = Int(fx), y0 = Int(fy), x1 = min(x0 + 1, cw - 1), y1 = min(y0 + 1, ch - 1)
            let tx = fx - Double(x0), ty = fy - Double(y0)
            let top = p[y0 * cw + x0] + (p[y0 * cw + x1] - p[y0 * cw + x0]) * tx
            let bottom = p[y1 * cw + x0] + (p[y1 * cw + x1] - p[y1 * cw + x0]) * tx
            return top + (bottom - top) * ty
        }
        var out = [UInt8](repeating: 0, count: n * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x
                let yy = (luma[i] - 16) / 219, pb = (up(scb, x, y) - 128) / 224, pr = (up(scr, x, y) - 128) / 224
                let r = yy + 1.5748 * pr, b = yy + 1.8556 * pb
                let g = (yy - 0.2126 * r - 0.0722 * b) / 0.7152
                for (k, c) in [r, g, b].enumerated() { out[i * 3 + k] = UInt8((min(max(c, 0), 1) * 255).rounded()) }
            }
        }
        return out
    }

    static func planes(_ image: RGBImage) -> FilterModel.Planes { FilterRenderTests.planes(image) }

    @Test(arguments: EffectModel.types)
    func effectMatchesItsIndependentModel(type: String) throws {
        let dir = try TestEnvironment.scratchDirectory()
        let bar = Self.perPixel.contains(type) ? 36.0 : 32
        for (width, height) in Self.sizes {
            let picture = Self.picture(width: width, height: height)
            // The engine's input: the picture as the image session scales it (here: unchanged).
            let input = try Self.render([], picture: picture, in: dir)
            let model = EffectModel(width: width, height: height)
            for n in Self.positions {
                let output = try Self.render([#"{"type": "\#(type)", "normalizedIntensity": \#(n)}"#], picture: picture, in: dir)
                var expected = FilterRenderTests.bytes(model.apply(type, n, to: Self.planes(input)))
                var got = output.bytes
                if type == "luminanceThreshold" {
                    // Away from the threshold: a pixel within 0.01 of it may fall either way.
                    let a = EffectModel.actual(type, n)
                    for i in 0..<(width * height) {
                        let c = (0..<3).map { Double(input.bytes[i * 3 + $0]) / 255 }
                        if abs(EffectModel.luma(c) - a) < 0.01 { for k in 0..<3 { got[i * 3 + k] = expected[i * 3 + k] } }
                    }
                }
                expected = Self.roundTrip420(expected, width: width, height: height)
                got = Self.roundTrip420(got, width: width, height: height)
                let psnr = Measure.psnr(expected, got)
                let unchanged = Measure.psnr(Self.roundTrip420(input.bytes, width: width, height: height), got)
                #expect(psnr >= bar, "\(type) at \(n), \(width)x\(height): \(psnr) dB")
                #expect(unchanged < psnr, "\(type) at \(n), \(width)x\(height) looks like its input (\(unchanged) dB)")
            }
        }
    }

    /// Effects in a chain with the other filter kinds, in order.
    @Test func effectsChainWithOtherFiltersInOrder() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let picture = Self.picture(width: 192, height: 108)
        let input = try Self.render([], picture: picture, in: dir)
        let chain: [(String, Double)] = [("gamma", 0.4), ("swirl", 70), ("sepiaTone", 80), ("contrast", 0.3), ("gaussianBlur", 20)]
        let output = try Self.render(chain.map { #"{"type": "\#($0.0)", "normalizedIntensity": \#($0.1)}"# }, picture: picture, in: dir)
        let filters = FilterModel(width: 192, height: 108), effects = EffectModel(width: 192, height: 108)
        var planes = Self.planes(input)
        for (type, n) in chain {
            planes = EffectModel.ranges[type] != nil ? effects.apply(type, n, to: planes) : filters.apply(type, n, to: planes)
        }
        let psnr = Measure.psnr(FilterRenderTests.bytes(planes), output.bytes)
        #expect(psnr >= 32, "chain: \(psnr) dB")
    }

    /// A thumbnail must look like the rendered frame scaled down: lengths in render-size
    /// pixels (blur sigma, Sobel step) scale with the picture. Rendering at a quarter of
    /// the size with the scale comes far closer to the full frame averaged down 4×4 than
    /// rendering the small picture as if it were the frame.
    @Test(arguments: ["gaussianBlur", "edgeDetection", "sketch", "tiltShift"])
    func thumbnailsScaleLengthsWithThePicture(type: String) throws {
        let (w, h, f) = (384, 216, 4)
        let full = Self.planes(Self.picture(width: w, height: h))
        func shrink(_ p: FilterModel.Planes) -> FilterModel.Planes {
            p.map { plane in
                (0..<(w / f * h / f)).map { j in
                    let (x, y) = (j % (w / f), j / (w / f))
                    var sum = 0.0
                    for yy in 0..<f { for xx in 0..<f { sum += plane[(y * f + yy) * (w / f) * f + x * f + xx] } }
                    return sum / Double(f * f)
                }
            }
        }
        func engine(_ p: FilterModel.Planes, width: Int, height: Int, scale: Double) throws -> [UInt8] {
            var bytes = FilterRenderTests.bytes(p)
            let definition = try #require(FilterRegistry.builtIn[type])
            let chain = try FilterChain(filters: [SessionFilter(type: type, normalizedIntensity: definition.normalizedDefault)],
                                        registry: .builtIn, assets: [:], pixelScale: scale)
            bytes.withUnsafeMutableBufferPointer { chain.apply(rgb: $0.baseAddress!, width: width, height: height, stride: width * 3) }
            return bytes
        }
        let rendered = try engine(full, width: w, height: h, scale: 1)
        let frameScaledDown = FilterRenderTests.bytes(shrink(FilterRenderTests.planes(RGBImage(width: w, height: h, bytes: rendered))))
        let small = shrink(full)
        let scaled = try engine(small, width: w / f, height: h / f, scale: 1.0 / Double(f))
        let unscaled = try engine(small, width: w / f, height: h / f, scale: 1)
        let (good, naive) = (Measure.psnr(frameScaledDown, scaled), Measure.psnr(frameScaledDown, unscaled))
        // Blurs scale exactly (a Gaussian of a box-averaged picture). An edge's magnitude does
        // not average linearly (a thin line averaged down is fainter than the gradient of the
        // averaged picture), so Sobel thumbnails come closer, not equal: measured 18 and 23 dB
        // against 10 and 11 unscaled on this picture of hard edges.
        let sobel = ["edgeDetection", "sketch"].contains(type)
        #expect(good >= (sobel ? 16 : 40), "\(type): scaled thumbnail \(good) dB from the frame scaled down")
        #expect(good > naive + (sobel ? 6 : 15), "\(type): scaled \(good) dB, unscaled \(naive) dB")
        // And the engine at scale ¼ is the model at scale ¼.
        var model = EffectModel(width: w / f, height: h / f)
        model.scale = 1.0 / Double(f)
        let input = FilterRenderTests.planes(RGBImage(width: w / f, height: h / f, bytes: FilterRenderTests.bytes(small)))
        let expected = FilterRenderTests.bytes(model.apply(type, 100, to: input))
        #expect(Measure.psnr(expected, scaled) >= 36, "\(type) at scale ¼ against the model")
    }
}
