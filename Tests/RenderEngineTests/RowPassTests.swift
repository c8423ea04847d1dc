import CFFmpeg
import ReelTestSupport
import Testing
@testable import RenderEngine
@testable import SessionKit

/// The one-pass row path (`FrameProcessor.processByRows`) gives the same bytes as the
/// separate whole-picture passes it replaces: Y′CbCr → packed RGB, the chain computed
/// pixel by pixel, RGB → Y′CbCr. Odd chroma sizes exercise the edge rows and columns.
@Suite struct RowPassTests {
    static let (width, height) = (66, 38)

    /// A BT.709 limited-range 4:2:0 picture: ramps plus a fixed pseudo-random texture.
    static func source() throws -> Frame {
        let frame = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: width, height: height)
        var state: UInt32 = 99
        func noise() -> Int {
            state = state &* 1_103_515_245 &+ 12345
            return Int(state >> 26) - 32
        }
        let f = frame.pointer.pointee
        let planes = [(f.data.0!, Int(f.linesize.0), width, height), (f.data.1!, Int(f.linesize.1), width / 2, height / 2),
                      (f.data.2!, Int(f.linesize.2), width / 2, height / 2)]
        for (index, (data, stride, w, h)) in planes.enumerated() {
            for y in 0..<h {
                for x in 0..<w {
                    let ramp = index == 0 ? 16 + x * 219 / w : 16 + (index == 1 ? y * 224 / h : 224 - x * 224 / w)
                    data[y * stride + x] = UInt8(min(max(ramp + noise(), 0), 255))
                }
            }
        }
        frame.pointer.pointee.colorspace = AVCOL_SPC_BT709
        frame.pointer.pointee.color_range = AVCOL_RANGE_MPEG
        return frame
    }

    /// The separate passes, written out: what the row path must reproduce byte for byte.
    static func separatePasses(_ source: Frame, chain: FilterChain) throws -> [UInt8] {
        let f = source.pointer.pointee
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let converter = YUVToRGB(SourceColour(matrixTag: "bt709", chromaLocationTag: "left", codedHeight: height), fullRange: false)
        rgb.withUnsafeMutableBufferPointer { out in
            converter.convert(y: f.data.0!, yStride: Int(f.linesize.0), cb: f.data.1!, cr: f.data.2!, chromaStride: Int(f.linesize.1),
                              width: width, height: height, into: out.baseAddress!, rgbStride: width * 3)
            chain.apply(rgb: out.baseAddress!, width: width, height: height, stride: width * 3, remembering: false)
        }
        let chromaWidth = width / 2, chromaHeight = height / 2
        var planes = [UInt8](repeating: 0, count: width * height + 2 * chromaWidth * chromaHeight)
        planes.withUnsafeMutableBufferPointer { p in
            let y = p.baseAddress!, cb = y + width * height, cr = cb + chromaWidth * chromaHeight
            RGBToYUV.convert(rgb: rgb, rgbStride: width * 3, width: width, height: height,
                             y: y, yStride: width, cb: cb, cr: cr, chromaStride: chromaWidth)
        }
        return planes
    }

    static func rowPath(_ source: Frame, chain: FilterChain) throws -> [UInt8] {
        let geometry = FrameProcessor.Geometry(orientation: .up, naturalSize: Size(width: Double(width), height: Double(height)),
                                               cropRect: Rect(x: 0, y: 0, width: Double(width), height: Double(height)))
        let processor = try FrameProcessor(geometry: geometry, renderWidth: width, renderHeight: height, chain: chain)
        let output = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: width, height: height)
        // Twice: the second frame runs with a memo the first one filled.
        try processor.process(source, into: output)
        try processor.process(source, into: output)
        let o = output.pointer.pointee
        var planes: [UInt8] = []
        for (data, stride, w, h) in [(o.data.0!, Int(o.linesize.0), width, height), (o.data.1!, Int(o.linesize.1), width / 2, height / 2),
                                     (o.data.2!, Int(o.linesize.2), width / 2, height / 2)] {
            for y in 0..<h { planes += UnsafeBufferPointer(start: data + y * stride, count: w) }
        }
        return planes
    }

    @Test(arguments: [
        [("brightness", 0.2), ("contrast", 0.3)],                           // one table
        [("brightness", 0.2), ("saturation", 0.4), ("warmth", 0.5)],         // the colour memo
        [("exposure", 0.3), ("vignette", 50.0)],                             // floats, by position
    ])
    func rowPathGivesTheSeparatePassesBytes(filters: [(String, Double)]) throws {
        try Self.expectRowPathMatchesSeparatePasses(filters.map { SessionFilter(type: $0.0, normalizedIntensity: $0.1) })
    }

    static func expectRowPathMatchesSeparatePasses(_ filters: [SessionFilter], assets: [String: FilterAssetFile] = [:]) throws {
        let chain = try FilterChain(filters: filters, registry: .builtIn, assets: assets)
        #expect(chain.runsByRow)
        let source = try source()
        let expected = try separatePasses(source, chain: chain)
        let rows = try rowPath(source, chain: chain)
        #expect(rows.count == expected.count)
        #expect(zip(rows, expected).filter { $0 != $1 }.count == 0, "\(filters.map(\.type))")
    }

    /// Every built-in filter whose chain runs by rows (adjust filters, a `.cube` LUT, the
    /// per-pixel effects), at 70 % of its slider, in one chain: the row path, planar from the
    /// Y′CbCr to the Y′CbCr without a packed RGB picture, gives the packed passes' bytes
    /// exactly (the engine keeps one arithmetic for both; docs/rendering.md, "Colour
    /// conversion"). Filters that read a lookup image are left out: they need a looks
    /// directory; their stage is the same kind of per-pixel operation as the LUT's.
    @Test func aChainOfEveryPerPixelFilterGivesTheSeparatePassesBytes() throws {
        var mutator = SeededMutator(seed: 11)
        let size = 5
        let table = (0..<(size * size * size * 3)).map { _ in Float(mutator.next() % 1_000_001) / 1_000_000 }
        let assets: [String: FilterAssetFile] = ["look.cube": .cube(try CubeLUT(size: size, table: table, domainMin: [0, 0, 0],
                                                                                  domainMax: [1, 1, 1]))]
        var filters: [SessionFilter] = []
        for definition in FilterRegistry.builtIn.definitions.values.sorted(by: { $0.type < $1.type }) {
            let range = definition.normalizedRange
            var filter = SessionFilter(type: definition.type, normalizedIntensity: range.lowerBound + 0.7 * (range.upperBound - range.lowerBound))
            switch definition.input {
            case .none: break
            case .fileField(_, .cube): filter.file = "look.cube"
            case .fileField, .look: continue
            }
            guard let alone = try? FilterChain(filters: [filter], registry: .builtIn, assets: assets),
                  alone.runsByRow, !alone.isIdentity else { continue }
            filters.append(filter)
        }
        // What runs by rows today; a picture pass (sharpness, blurs, distortions, block
        // effects) does not.
        let perPixel: Set = ["brightness", "contrast", "exposure", "falseColor", "gamma", "highlights", "hue", "luminanceThreshold",
                             "lut", "saturation", "sepiaTone", "shadows", "vibrance", "vignette", "warmth"]
        #expect(perPixel.isSubset(of: Set(filters.map(\.type))), "\(filters.map(\.type))")
        try Self.expectRowPathMatchesSeparatePasses(filters, assets: assets)
    }
}
