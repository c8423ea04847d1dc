import CFFmpeg
import Testing
@testable import RenderEngine
@testable import SessionKit

/// docs/rendering.md, "Colour conversion": a picture scaled to half its source's size or
/// less keeps the source's chroma (4:4:4 at the scaled size) on its way to RGB, instead of
/// halving it and interpolating it back. A 4K phone clip exported at 1080p keeps every
/// colour edge that the 4K file has.
@Suite struct FullChromaTests {
    /// 4:4:4 planes go to RGB with no interpolation, within one code value of the
    /// conversion written out in doubles.
    @Test(arguments: [(SourceColour.Matrix.bt709, 0.2126, 0.0722), (.bt601, 0.299, 0.114)])
    func fullResolutionChromaIsReadAsItIs(matrix: SourceColour.Matrix, kr: Double, kb: Double) {
        let (width, height) = (37, 11)
        var state: UInt32 = 7
        func sample() -> UInt8 {
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(state >> 24)
        }
        let y = (0..<(width * height)).map { _ in sample() }
        let cb = (0..<(width * height)).map { _ in sample() }
        let cr = (0..<(width * height)).map { _ in sample() }
        for fullRange in [false, true] {
            var colour = SourceColour(matrixTag: nil, chromaLocationTag: "left", codedHeight: height)
            colour.matrix = matrix
            let converter = YUVToRGB(colour, fullRange: fullRange, fullChroma: true)
            var engine = [UInt8](repeating: 0, count: width * height * 3)
            engine.withUnsafeMutableBufferPointer { out in
                converter.convert(y: y, yStride: width, cb: cb, cr: cr, chromaStride: width, width: width, height: height,
                                  into: out.baseAddress!, rgbStride: width * 3)
            }
            let kg = 1 - kr - kb
            var worst = 0
            for i in 0..<(width * height) {
                let l = fullRange ? Double(y[i]) : (Double(y[i]) - 16) * 255 / 219
                let scale = fullRange ? 1.0 : 255.0 / 224
                let b = (Double(cb[i]) - 128) * scale, r = (Double(cr[i]) - 128) * scale
                let rgb = [l + 2 * (1 - kr) * r, l - 2 * kb * (1 - kb) / kg * b - 2 * kr * (1 - kr) / kg * r, l + 2 * (1 - kb) * b]
                for (c, value) in rgb.enumerated() {
                    worst = max(worst, abs(Int(engine[i * 3 + c]) - Int(min(max(value.rounded(), 0), 255))))
                }
            }
            #expect(worst <= 1, "\(matrix), full range \(fullRange): off by \(worst)")
        }
    }

    /// The HDR path's conversion to 16-bit RGB (`YCbCrToRGB48`) reads 4:4:4 planes as they
    /// are too: 10-bit BT.2020 limited samples within 2 codes of 65535 of the formula in doubles.
    @Test func highBitDepthFullChromaIsReadAsItIs() {
        let (width, height) = (29, 7)
        var state: UInt32 = 3
        func sample() -> UInt16 {
            state = state &* 1_103_515_245 &+ 12345
            return UInt16(64 + Int(state >> 16) % 877)
        }
        let y = (0..<(width * height)).map { _ in sample() }
        let cb = (0..<(width * height)).map { _ in sample() }
        let cr = (0..<(width * height)).map { _ in sample() }
        var colour = SourceColour(matrixTag: "bt2020nc", chromaLocationTag: "left", codedHeight: height)
        colour.matrix = .bt2020
        var engine = [UInt16](repeating: 0, count: width * height * 3)
        engine.withUnsafeMutableBufferPointer { out in
            YCbCrToRGB48(colour, fullRange: false, bitDepth: 10, fullChroma: true).convert(
                y: y, yStride: width, cb: cb, cr: cr, chromaStride: width, width: width, height: height,
                into: out.baseAddress!, rgbStride: width * 3, scratch: YCbCrToRGB48.Scratch(width: width))
        }
        let (kr, kb) = (0.2627, 0.0593), kg = 1 - kr - kb
        var worst = 0
        for i in 0..<(width * height) {
            let l = (Double(y[i]) - 64) / 876, b = (Double(cb[i]) - 512) / 896, r = (Double(cr[i]) - 512) / 896
            let rgb = [l + 2 * (1 - kr) * r, l - 2 * kb * (1 - kb) / kg * b - 2 * kr * (1 - kr) / kg * r, l + 2 * (1 - kb) * b]
            for (c, value) in rgb.enumerated() {
                worst = max(worst, abs(Int(engine[i * 3 + c]) - Int(min(max((value * 65535).rounded(), 0), 65535))))
            }
        }
        #expect(worst <= 2, "off by \(worst) of 65535")
    }

    /// BT.709 limited red and green bars meeting at luma column 64 of a 128 × 72 4:2:0
    /// picture whose chroma is centred (each sample covers two columns, so the file has the
    /// edge sharp), scaled to 64 × 36: the columns either side of the edge (31 and 32) are
    /// their bars' colours. Through 4:2:0 at 64 × 36 the chroma edge would fall between
    /// two samples and the columns beside it would take their neighbour's chroma (100
    /// levels off, measured before this path existed).
    @Test func aHalfSizePictureKeepsItsSourcesColourEdges() throws {
        let (width, height) = (128, 72)
        let red: (y: UInt8, cb: UInt8, cr: UInt8) = (63, 102, 240)
        let green: (y: UInt8, cb: UInt8, cr: UInt8) = (173, 42, 26)
        let source = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: width, height: height)
        let f = source.pointer.pointee
        for row in 0..<height {
            for x in 0..<width { f.data.0![row * Int(f.linesize.0) + x] = x < 64 ? red.y : green.y }
        }
        for row in 0..<(height / 2) {
            for x in 0..<(width / 2) {
                f.data.1![row * Int(f.linesize.1) + x] = x < 32 ? red.cb : green.cb
                f.data.2![row * Int(f.linesize.2) + x] = x < 32 ? red.cr : green.cr
            }
        }
        source.pointer.pointee.colorspace = AVCOL_SPC_BT709
        source.pointer.pointee.color_range = AVCOL_RANGE_MPEG
        source.pointer.pointee.chroma_location = AVCHROMA_LOC_CENTER

        let geometry = FrameProcessor.Geometry(orientation: .up, naturalSize: Size(width: Double(width), height: Double(height)),
                                               cropRect: Rect(x: 0, y: 0, width: Double(width), height: Double(height)))
        let processor = try FrameProcessor(geometry: geometry, renderWidth: 64, renderHeight: 36,
                                           chain: try FilterChain(filters: [], registry: .builtIn, assets: [:]))
        let picture = try processor.processRGB(source)
        let p = picture.pointer.pointee
        // The bars' colours by the BT.709 limited-range formula, in doubles.
        func rgb(_ c: (y: UInt8, cb: UInt8, cr: UInt8)) -> [Int] {
            let l = (Double(c.y) - 16) * 255 / 219, b = (Double(c.cb) - 128) * 255 / 224, r = (Double(c.cr) - 128) * 255 / 224
            let (kr, kb) = (0.2126, 0.0722), kg = 1 - kr - kb
            return [l + 2 * (1 - kr) * r, l - 2 * kb * (1 - kb) / kg * b - 2 * kr * (1 - kr) / kg * r, l + 2 * (1 - kb) * b]
                .map { Int(min(max($0.rounded(), 0), 255)) }
        }
        for row in [0, 17, 35] {
            for (column, bar) in [(0, red), (31, red), (32, green), (63, green)] {
                let pixel = (0..<3).map { Int(p.data.0![row * Int(p.linesize.0) + column * 3 + $0]) }
                let expected = rgb(bar)
                // Luma's bicubic ringing at the edge moves each channel a few levels; a
                // neighbour's chroma would move one by tens.
                let worst = zip(pixel, expected).map { abs($0 - $1) }.max() ?? 0
                #expect(worst <= 8, "row \(row), column \(column): \(pixel), its bar \(expected)")
            }
        }
    }
}
