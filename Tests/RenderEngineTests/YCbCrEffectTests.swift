import CFFmpeg
import ReelTestSupport
import Testing
@testable import RenderEngine
@testable import SessionKit

/// A video segment whose one filter only moves pixels (plane by plane through sample
/// maps) or is grey from luminance (on the luma) stays Y′CbCr in `FrameProcessor`: its
/// frames must still be the effect of `EffectModel` on the unfiltered frame, upright and
/// turned.
@Suite struct YCbCrEffectTests {
    static let (width, height) = (192, 128)
    static let distortions = ["bulge", "pinch", "sphereRefraction", "stretchDistortion", "swirl"]
    static let greys = ["edgeDetection", "sketch"]

    /// `EffectRenderTests`' picture as BT.709 limited 4:2:0 (this test's own conversion:
    /// chroma averaged over 2×2).
    static func source() throws -> Frame {
        let rgb = EffectRenderTests.picture(width: width, height: height).bytes
        let frame = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: width, height: height)
        let f = frame.pointer.pointee
        let (y, cb, cr) = (f.data.0!, f.data.1!, f.data.2!)
        var pb = [Double](repeating: 0, count: width * height), pr = pb
        for i in 0..<(width * height) {
            let (r, g, b) = (Double(rgb[3 * i]) / 255, Double(rgb[3 * i + 1]) / 255, Double(rgb[3 * i + 2]) / 255)
            let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
            y[(i / width) * Int(f.linesize.0) + i % width] = UInt8((16 + 219 * luma).rounded())
            (pb[i], pr[i]) = ((b - luma) / 1.8556, (r - luma) / 1.5748)
        }
        for j in 0..<(height / 2) {
            for i in 0..<(width / 2) {
                let top = 2 * j * width + 2 * i, bottom = top + width
                let corners: [Int] = [top, top + 1, bottom, bottom + 1]
                let meanB: Double = corners.map { pb[$0] }.reduce(0, +) / 4, meanR: Double = corners.map { pr[$0] }.reduce(0, +) / 4
                cb[j * Int(f.linesize.1) + i] = UInt8((128 + 224 * meanB).rounded())
                cr[j * Int(f.linesize.2) + i] = UInt8((128 + 224 * meanR).rounded())
            }
        }
        frame.pointer.pointee.colorspace = AVCOL_SPC_BT709
        frame.pointer.pointee.color_range = AVCOL_RANGE_MPEG
        return frame
    }

    /// `source` through a `FrameProcessor` with `filters`, as packed RGB (this test's own
    /// conversion: chroma read at the nearest sample, no interpolation).
    static func process(_ source: Frame, _ filters: [(String, Double)], orientation: Orientation) throws -> (RGBImage, FilterChain) {
        let chain = try FilterChain(filters: filters.map { SessionFilter(type: $0.0, normalizedIntensity: $0.1) },
                                    registry: .builtIn, assets: [:])
        let natural = Size(width: Double(width), height: Double(height))
        let (w, h) = orientation.swapsAxes ? (height, width) : (width, height)
        let geometry = FrameProcessor.Geometry(orientation: orientation, naturalSize: natural,
                                               cropRect: Rect(x: 0, y: 0, width: Double(w), height: Double(h)))
        let processor = try FrameProcessor(geometry: geometry, renderWidth: w, renderHeight: h, chain: chain)
        let output = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: w, height: h)
        try processor.process(source, into: output)
        try processor.process(source, into: output)  // the second frame reuses the maps the first made
        let o = output.pointer.pointee
        var bytes = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let luma = (Double(o.data.0![y * Int(o.linesize.0) + x]) - 16) / 219
                let pb = (Double(o.data.1![(y / 2) * Int(o.linesize.1) + x / 2]) - 128) / 224
                let pr = (Double(o.data.2![(y / 2) * Int(o.linesize.2) + x / 2]) - 128) / 224
                let r = luma + 1.5748 * pr, b = luma + 1.8556 * pb, g = (luma - 0.2126 * r - 0.0722 * b) / 0.7152
                for (k, c) in [r, g, b].enumerated() { bytes[(y * w + x) * 3 + k] = UInt8((min(max(c, 0), 1) * 255).rounded()) }
            }
        }
        return (RGBImage(width: w, height: h, bytes: bytes), chain)
    }

    /// Both sides through the same 4:2:0 round trip, as `EffectRenderTests` compares them:
    /// the engine's chroma is half the resolution the model's is.
    static func roundTrip(_ rgb: [UInt8], _ width: Int, _ height: Int) -> [UInt8] {
        EffectRenderTests.roundTrip420(rgb, width: width, height: height)
    }

    @Test(arguments: distortions + greys, [Orientation.up, .right])
    func videoFrameMatchesTheModel(type: String, orientation: Orientation) throws {
        let source = try Self.source()
        let (plain, _) = try Self.process(source, [], orientation: orientation)
        let model = EffectModel(width: plain.width, height: plain.height)
        for n in [25.0, 100] {
            let (got, chain) = try Self.process(source, [(type, n)], orientation: orientation)
            #expect(Self.greys.contains(type) ? chain.greyFromLuminance != nil : chain.distortion != nil,
                    "\(type) runs on the Y′CbCr planes")
            let expected = FilterRenderTests.bytes(model.apply(type, n, to: FilterRenderTests.planes(plain)))
            let psnr = Measure.psnr(Self.roundTrip(expected, got.width, got.height), Self.roundTrip(got.bytes, got.width, got.height))
            #expect(psnr >= 32, "\(type) at \(n), \(orientation): \(psnr) dB")
            #expect(Measure.psnr(plain.bytes, got.bytes) < psnr, "\(type) at \(n) looks like its input")
        }
    }

    /// A chain that also changes colours needs RGB, and one of several distortions keeps
    /// it too (each 4:2:0 pass would soften the colours again).
    @Test func otherChainsKeepTheRGBPath() throws {
        for filters in [[("brightness", 0.2), ("swirl", 50.0)], [("swirl", 50.0), ("sepiaTone", 50.0)], [("swirl", 50.0), ("bulge", 50.0)],
                        [("sketch", 50.0), ("brightness", 0.2)]] {
            let chain = try FilterChain(filters: filters.map { SessionFilter(type: $0.0, normalizedIntensity: $0.1) },
                                        registry: .builtIn, assets: [:])
            #expect(chain.distortion == nil && chain.greyFromLuminance == nil, "\(filters)")
        }
    }
}
