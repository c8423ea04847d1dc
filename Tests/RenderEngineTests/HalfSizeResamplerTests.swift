import CFFmpeg
import Testing
@testable import RenderEngine
@testable import SessionKit

/// docs/rendering.md, "Half-size pictures": a 4:2:0 crop exactly twice the target's size
/// becomes 4:4:4 at the target size by the engine's own integer resampler — luma halved by
/// the bicubic (B = 0, C = 0.6), chroma moved onto the pixel centres where the stream sites
/// it. Checked through `YCbCrResampler` on real frames against the filter written out in
/// doubles here, within one code value.
@Suite struct HalfSizeResamplerTests {
    /// Keys' cubic with a = −0.6 (libswscale's default bicubic), written in its own form.
    static func cubic(_ x: Double) -> Double {
        let a = -0.6, d = abs(x)
        if d < 1 { return (a + 2) * d * d * d - (a + 3) * d * d + 1 }
        if d < 2 { return a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a }
        return 0
    }

    /// A 1-D resample of `line` at `position` (sample units) by the cubic stretched by
    /// `scale`, edges repeated, weights normalised.
    static func sample(_ line: (Int) -> Double, count: Int, at position: Double, scale: Double) -> Double {
        let reach = 2 * scale
        var sum = 0.0, total = 0.0
        for k in Int((position - reach).rounded(.down))...Int((position + reach).rounded(.up)) {
            let w = cubic((Double(k) - position) / scale)
            sum += w * line(min(max(k, 0), count - 1))
            total += w
        }
        return sum / total
    }

    struct Case: CustomStringConvertible {
        var source: AVPixelFormat, sourceDepth: Int, target: AVPixelFormat, targetDepth: Int
        var siting: AVChromaLocation
        var description: String { "\(sourceDepth) → \(targetDepth) bits, chroma \(av_chroma_location_name(siting).map { String(cString: $0) } ?? "?")" }
    }

    static let cases: [Case] = [
        Case(source: AV_PIX_FMT_YUV420P10LE, sourceDepth: 10, target: AV_PIX_FMT_YUV444P, targetDepth: 8, siting: AVCHROMA_LOC_LEFT),
        Case(source: AV_PIX_FMT_YUV420P10LE, sourceDepth: 10, target: AV_PIX_FMT_YUV444P10LE, targetDepth: 10, siting: AVCHROMA_LOC_TOPLEFT),
        Case(source: AV_PIX_FMT_YUV420P, sourceDepth: 8, target: AV_PIX_FMT_YUV444P, targetDepth: 8, siting: AVCHROMA_LOC_CENTER),
        Case(source: AV_PIX_FMT_YUV420P, sourceDepth: 8, target: AV_PIX_FMT_YUV444P10LE, targetDepth: 10, siting: AVCHROMA_LOC_LEFT),
    ]

    @Test(arguments: cases)
    func aTwiceAsLargeCropIsHalvedAsTheCubicWrittenInDoubles(_ c: Case) throws {
        // An odd-sized target, a crop away from the frame's corner, noise with edges.
        let (width, height) = (37, 13), crop = FrameProcessor.Crop(x: 6, y: 4, width: 74, height: 26)
        let (frameWidth, frameHeight) = (86, 34)
        let source = try Frame(videoFormat: c.source, width: frameWidth, height: frameHeight)
        let top = (1 << c.sourceDepth) - 1
        var state: UInt32 = 11
        func sample() -> Int {
            state = state &* 1_103_515_245 &+ 12345
            return Int(state >> 20) % 4 == 0 ? top : Int(state >> 16) % (top + 1)
        }
        let f = source.pointer.pointee
        let planes = [(f.data.0!, Int(f.linesize.0), frameWidth, frameHeight),
                      (f.data.1!, Int(f.linesize.1), frameWidth / 2, frameHeight / 2),
                      (f.data.2!, Int(f.linesize.2), frameWidth / 2, frameHeight / 2)]
        var values: [[[Int]]] = []
        for (data, stride, w, h) in planes {
            var plane: [[Int]] = []
            for row in 0..<h {
                var line: [Int] = []
                for x in 0..<w {
                    let v = sample()
                    line.append(v)
                    if c.sourceDepth > 8 {
                        UnsafeMutableRawPointer(data + row * stride).assumingMemoryBound(to: UInt16.self)[x] = UInt16(v)
                    } else {
                        data[row * stride + x] = UInt8(v)
                    }
                }
                plane.append(line)
            }
            values.append(plane)
        }
        source.pointer.pointee.chroma_location = c.siting
        source.pointer.pointee.color_range = AVCOL_RANGE_MPEG
        source.pointer.pointee.colorspace = AVCOL_SPC_BT709

        let resampler = YCbCrResampler(format: c.target, width: width, height: height)
        let picture = try #require(try resampler.resample(source, crop: crop, reading: FrameProcessor.reading(source.pointer.pointee)))
        #expect(picture.fullChroma && picture.bitDepth == c.targetDepth)
        func read(_ p: UnsafePointer<UInt8>, _ stride: Int, _ x: Int, _ row: Int) -> Int {
            c.targetDepth > 8 ? Int(UnsafeRawPointer(p + row * stride).assumingMemoryBound(to: UInt16.self)[x]) : Int(p[row * stride + x])
        }
        let gain = Double(1 << c.targetDepth) / Double(1 << c.sourceDepth), outTop = Double((1 << c.targetDepth) - 1)
        func expected(_ v: Double) -> Int { Int(min(max((v * gain).rounded(), 0), outTop)) }

        // Luma: output pixel (i, j) is centred on source sample (2i + ½, 2j + ½) of the crop.
        var worstLuma = 0
        let luma = values[0]
        for j in 0..<height {
            for i in 0..<width {
                let column = { (x: Int) in
                    Self.sample({ luma[crop.y + $0][crop.x + x].asDouble }, count: crop.height, at: 2 * Double(j) + 0.5, scale: 2)
                }
                let v = Self.sample(column, count: crop.width, at: 2 * Double(i) + 0.5, scale: 2)
                worstLuma = max(worstLuma, abs(read(picture.y, picture.yStride, i, j) - expected(v)))
            }
        }
        #expect(worstLuma <= 1, "\(c): luma off by \(worstLuma)")

        // Chroma sample (m, n) of the crop lies at luma (2m, 2n + ½) sited left, (2m + ½,
        // 2n + ½) center, (2m, 2n) top-left; output pixel i wants it at 2i + ½.
        let across = c.siting == AVCHROMA_LOC_CENTER ? 0.0 : 0.25, down = c.siting == AVCHROMA_LOC_TOPLEFT ? 0.25 : 0.0
        var worstChroma = 0
        for (plane, out) in [(values[1], picture.cb), (values[2], picture.cr)] {
            for j in 0..<height {
                for i in 0..<width {
                    let column = { (x: Int) in
                        Self.sample({ plane[crop.y / 2 + $0][crop.x / 2 + x].asDouble }, count: height, at: Double(j) + down, scale: 1)
                    }
                    let v = Self.sample(column, count: width, at: Double(i) + across, scale: 1)
                    worstChroma = max(worstChroma, abs(read(out, picture.chromaStride, i, j) - expected(v)))
                }
            }
        }
        #expect(worstChroma <= 1, "\(c): chroma off by \(worstChroma)")
    }

    /// Any other shape keeps libswscale: not exactly twice, odd crop offsets, 4:2:2, deeper sources.
    @Test func onlyAnExactHalfOfA420PictureOnEvenSamplesFits() {
        let half = HalfSizeResampler.Layout(chroma: .half, depth: 10), full = HalfSizeResampler.Layout(chroma: .full, depth: 8)
        let crop = FrameProcessor.Crop(x: 0, y: 0, width: 3840, height: 2160)
        #expect(HalfSizeResampler.fits(source: half, target: full, crop: crop, width: 1920, height: 1080))
        #expect(!HalfSizeResampler.fits(source: half, target: full, crop: crop, width: 1920, height: 1088))
        #expect(!HalfSizeResampler.fits(source: half, target: full, crop: crop, width: 1280, height: 720))
        #expect(!HalfSizeResampler.fits(source: half, target: full, crop: FrameProcessor.Crop(x: 1, y: 0, width: 3840, height: 2160),
                                        width: 1920, height: 1080))
        #expect(!HalfSizeResampler.fits(source: HalfSizeResampler.Layout(chroma: .other, depth: 10), target: full, crop: crop,
                                        width: 1920, height: 1080))
        #expect(!HalfSizeResampler.fits(source: HalfSizeResampler.Layout(chroma: .half, depth: 12), target: full, crop: crop,
                                        width: 1920, height: 1080))
    }
}

private extension Int {
    var asDouble: Double { Double(self) }
}
