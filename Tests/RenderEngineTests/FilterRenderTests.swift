import Foundation
import ReelTestSupport
import Testing
@testable import RenderEngine
@testable import SessionKit

/// Every filter type rendered by the engine on a test card (image session, PNG in and
/// out, so nothing but the filter changes the pixels) against `FilterModel`.
@Suite struct FilterRenderTests {
    static let card = RGBImage.testCard()

    /// Renders `filters` (JSON objects) on the test card; returns the output picture.
    static func render(_ filters: [String], in dir: URL, looks: URL? = LooksDirectory.shipped,
                       strictLooks: Bool = false) throws -> RGBImage {
        let cardPath = dir.appendingPathComponent("card.png").path
        if !FileManager.default.fileExists(atPath: cardPath) { try card.writePNG(to: cardPath) }
        let session = #"{"image": {"source": "card.png", "filters": [\#(filters.joined(separator: ","))]}}"#
        let sessionPath = try TestEnvironment.write(session, to: "s-\(UUID().uuidString.prefix(6)).json", in: dir)
        let loaded = try LoadedSession.load(path: sessionPath, looks: looks, strictLooks: strictLooks)
        guard loaded.report.isValid else { throw EngineError("\(loaded.report.problems)") }
        let out = dir.appendingPathComponent("out-\(UUID().uuidString.prefix(6)).png").path
        try ImageRender(loaded: loaded).run(to: out)
        return try RGBImage.readPNG(out, width: card.width, height: card.height)
    }

    static func planes(_ image: RGBImage) -> FilterModel.Planes {
        (0..<3).map { k in stride(from: k, to: image.bytes.count, by: 3).map { Double(image.bytes[$0]) / 255 } }
    }

    static func bytes(_ planes: FilterModel.Planes) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: planes[0].count * 3)
        for i in planes[0].indices { for k in 0..<3 { out[i * 3 + k] = UInt8((planes[k][i] * 255).rounded()) } }
        return out
    }

    /// Renders one filter and compares it with the model; returns (PSNR vs model, PSNR vs input).
    static func check(_ type: String, _ n: Double, json: String? = nil, lattice: [UInt8]? = nil,
                      in dir: URL) throws -> (Double, Double) {
        let filter = json ?? #"{"type": "\#(type)", "normalizedIntensity": \#(n)}"#
        let output = try render([filter], in: dir)
        let model = FilterModel(width: card.width, height: card.height)
        let expected = bytes(model.apply(type, n, to: planes(card), lookup: lattice))
        return (Measure.psnr(expected, output.bytes), Measure.psnr(card.bytes, output.bytes))
    }

    @Test func noFilterLeavesTheCardUnchanged() throws {
        let dir = try TestEnvironment.scratchDirectory()
        #expect(try Self.render([], in: dir) == Self.card)
    }

    static let adjustTypes = ["brightness", "contrast", "saturation", "exposure", "vibrance", "hue", "warmth",
                              "sharpness", "gamma"]

    @Test(arguments: adjustTypes)
    func adjustFilterMatchesItsFormula(type: String) throws {
        let dir = try TestEnvironment.scratchDirectory()
        for n in [-1.0, -0.5, 0.5, 1] {
            let (psnr, unchanged) = try Self.check(type, n, in: dir)
            #expect(psnr >= 40, "\(type) at \(n): \(psnr) dB")
            #expect(unchanged < psnr, "\(type) at \(n) changed nothing")
        }
    }

    @Test(arguments: ["highlights", "shadows", "vignette"])
    func percentFilterMatchesItsFormula(type: String) throws {
        let dir = try TestEnvironment.scratchDirectory()
        let identity = type == "highlights" ? 100.0 : 0
        for n in [0.0, 50, 100] {
            let (psnr, unchanged) = try Self.check(type, n, in: dir)
            #expect(psnr >= 40, "\(type) at \(n): \(psnr) dB")
            if n != identity { #expect(unchanged < psnr, "\(type) at \(n) changed nothing") }
            else { #expect(unchanged == .infinity, "\(type) at its identity \(n) changed the picture") }
        }
    }

    @Test(arguments: ["straighten", "horizontalPerspective", "verticalPerspective"])
    func positionFilterMatchesItsGeometry(type: String) throws {
        let dir = try TestEnvironment.scratchDirectory()
        for n in [-20.0, -10, 10, 20] {
            let (psnr, unchanged) = try Self.check(type, n, in: dir)
            #expect(psnr >= 40, "\(type) at \(n): \(psnr) dB")
            #expect(unchanged < psnr)
        }
    }

    /// Positive straighten turns the picture clockwise: a level horizon tilts down to the right.
    @Test func straightenTurnsClockwise() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let (w, h) = (96, 64)
        var bytes = [UInt8](repeating: 0, count: w * h * 3)
        for i in 0..<(w * h / 2 * 3) { bytes[i] = 255 }   // top half white
        try RGBImage(width: w, height: h, bytes: bytes).writePNG(to: dir.appendingPathComponent("card.png").path)
        let out = try Self.render([#"{"type": "straighten", "normalizedIntensity": 15}"#], in: dir)
        func whiteRows(_ x: Int) -> Int { (0..<h).filter { out[x, $0].0 > 128 }.count }
        #expect(whiteRows(w - 1) > whiteRows(0) + 10, "left \(whiteRows(0)), right \(whiteRows(w - 1))")
    }

    /// A lookup image made here from a known function, at 0, 50 and 100.
    @Test func lookupImageMatchesGPUImagesLookup() throws {
        let dir = try TestEnvironment.scratchDirectory()
        var lattice = LookupTable.identityRGB()
        for i in stride(from: 0, to: lattice.count, by: 3) {
            let (r, g, b) = (Double(lattice[i]) / 255, Double(lattice[i + 1]) / 255, Double(lattice[i + 2]) / 255)
            lattice[i] = UInt8((255 * (1 - r * 0.8)).rounded())
            lattice[i + 1] = UInt8((255 * (g * g)).rounded())
            lattice[i + 2] = UInt8((255 * (0.5 * b + 0.3 * r)).rounded())
        }
        try RGBImage(width: 512, height: 512, bytes: lattice).writePNG(to: dir.appendingPathComponent("odd.png").path)
        for n in [0.0, 50, 100] {
            let json = #"{"type": "lookup", "image": "odd.png", "normalizedIntensity": \#(n)}"#
            let (psnr, unchanged) = try Self.check("lookup", n, json: json, lattice: lattice, in: dir)
            #expect(psnr >= 40, "lookup at \(n): \(psnr) dB")
            if n > 0 { #expect(unchanged < 25) }
        }
    }

    /// The identity lattice: blue is interpolated between tiles (±1 code value); red and
    /// green are read nearest on a 64-level grid, as GPUImage's Metal shader does, so they
    /// move by at most 255/126 ≈ 2 code values, and not at all on the grid's own levels.
    @Test func identityLookupImageLeavesThePictureAlone() throws {
        let dir = try TestEnvironment.scratchDirectory()
        try RGBImage(width: 512, height: 512, bytes: LookupTable.identityRGB()).writePNG(to: dir.appendingPathComponent("id.png").path)
        let out = try Self.render([#"{"type": "lookup", "image": "id.png"}"#], in: dir)
        let onGrid = Set((0..<64).map { UInt8((Double($0) * 255 / 63).rounded()) })
        for i in stride(from: 0, to: out.bytes.count, by: 3) {
            let (src, dst) = (Self.card.bytes[i..<(i + 3)].map(Int.init), out.bytes[i..<(i + 3)].map(Int.init))
            #expect(abs(src[2] - dst[2]) <= 1)
            for k in 0..<2 {
                #expect(abs(src[k] - dst[k]) <= 2)
                if onGrid.contains(UInt8(src[k])) { #expect(src[k] == dst[k]) }
            }
        }
    }

    /// A named look reads the shipped image; the model reads the same PNG through ffmpeg.
    @Test(arguments: ["wilshire", "mulholland"])
    func namedLookIsItsLookupImage(name: String) throws {
        let dir = try TestEnvironment.scratchDirectory()
        let looks = try #require(LooksDirectory.shipped)
        let lattice = try RGBImage.readPNG(looks.appendingPathComponent("\(name).png").path, width: 512, height: 512).bytes
        for n in [50.0, 100] {
            let (psnr, unchanged) = try Self.check(name, n, lattice: lattice, in: dir)
            #expect(psnr >= 40, "\(name) at \(n): \(psnr) dB")
            #expect(unchanged < psnr)
        }
    }

    /// Spatial and per-pixel stages chained: the model applies them one after another.
    @Test func aChainOfEveryKindMatchesTheModelInOrder() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let chain: [(String, Double)] = [("gamma", 0.4), ("warmth", -0.6), ("sharpness", 0.5), ("vignette", 70),
                                         ("straighten", -7), ("hue", 0.25), ("contrast", 0.3)]
        let output = try Self.render(chain.map { #"{"type": "\#($0.0)", "normalizedIntensity": \#($0.1)}"# }, in: dir)
        let model = FilterModel(width: Self.card.width, height: Self.card.height)
        var planes = Self.planes(Self.card)
        for (type, n) in chain { planes = model.apply(type, n, to: planes) }
        let psnr = Measure.psnr(Self.bytes(planes), output.bytes)
        #expect(psnr >= 38, "chain: \(psnr) dB")
    }
}
