import Testing
@testable import RenderEngine
@testable import SessionKit

/// The colour memo is an exact cache: a chain run with it gives the same bytes as the
/// chain computed pixel by pixel, frame after frame, and it is never used for stages whose
/// result depends on position.
@Suite struct ColourMemoTests {
    static func chain(_ filters: [(String, Double)]) throws -> FilterChain {
        try FilterChain(filters: filters.map { SessionFilter(type: $0.0, normalizedIntensity: $0.1) },
                        registry: .builtIn, assets: [:])
    }

    /// `count` pixels drawn from `palette` colours by a fixed linear congruential sequence.
    static func picture(pixels count: Int, palette: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let colours = (0..<palette).map { _ in (UInt8(next() & 255), UInt8(next() & 255), UInt8(next() & 255)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 3)
        for _ in 0..<count {
            let c = colours[Int(next() % UInt64(palette))]
            bytes += [c.0, c.1, c.2]
        }
        return bytes
    }

    static func run(_ chain: FilterChain, _ input: [UInt8], width: Int, workspace: FilterWorkspace,
                    remembering: Bool) -> [UInt8] {
        var bytes = input
        bytes.withUnsafeMutableBufferPointer { p in
            chain.apply(rgb: p.baseAddress!, width: width, height: input.count / 3 / width, stride: width * 3,
                        workspace: workspace, remembering: remembering)
        }
        return bytes
    }

    /// Bytes that differ (a count, so a failure does not print a picture).
    static func differences(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.count == b.count ? zip(a, b).filter { $0 != $1 }.count : max(a.count, b.count)
    }

    @Test(arguments: [40, 5_000, 400_000])
    func rememberedChainGivesTheComputedBytes(palette: Int) throws {
        let chain = try Self.chain([("brightness", 0.2), ("contrast", 0.3), ("saturation", 0.4), ("warmth", 0.5),
                                    ("hue", 0.2), ("highlights", 60)])
        let width = 640
        let workspace = FilterWorkspace()
        for frame in 0..<3 {
            let input = Self.picture(pixels: width * 360, palette: palette, seed: UInt64(frame + 1))
            let computed = Self.run(chain, input, width: width, workspace: FilterWorkspace(), remembering: false)
            let remembered = Self.run(chain, input, width: width, workspace: workspace, remembering: true)
            #expect(computed != input, "the chain changed nothing")
            #expect(Self.differences(remembered, computed) == 0, "frame \(frame), \(palette) colours")
        }
    }

    @Test func positionDependentStagesAreNotRemembered() throws {
        let chain = try Self.chain([("saturation", 0.4), ("vignette", 80)])
        let width = 320, height = 180
        let flat = [UInt8](repeating: 200, count: width * height * 3)
        let workspace = FilterWorkspace()
        let first = Self.run(chain, flat, width: width, workspace: workspace, remembering: true)
        #expect(Self.differences(first, Self.run(chain, flat, width: width, workspace: FilterWorkspace(), remembering: false)) == 0)
        #expect(first[0] < first[(height / 2 * width + width / 2) * 3], "the corner is not darker than the centre")
    }

    /// Light stages alone (saturation) run straight over the row, cheaper than the memo's
    /// look-ups; a chain with any heavier per-pixel stage (warmth) is remembered. Either
    /// way the bytes are the computed ones.
    @Test func onlyAChainWithAHeavyStageIsRemembered() throws {
        let saturation = Saturation.Operation(amount: 1.5), warmth = Warmth.Operation(temperature: 7000)
        #expect(!FilterChain.remembers([saturation]))
        #expect(FilterChain.remembers([saturation, warmth]))
        #expect(FilterChain.remembers([warmth]))
        #expect(!FilterChain.remembers([warmth, Vignette.Operation(amount: 0.5)]))
        let chain = try Self.chain([("brightness", 0.2), ("contrast", 0.3), ("saturation", 0.4)])
        let input = Self.picture(pixels: 320 * 180, palette: 5_000, seed: 4)
        let direct = Self.run(chain, input, width: 320, workspace: FilterWorkspace(), remembering: true)
        #expect(direct != input, "the chain changed nothing")
        #expect(Self.differences(direct, Self.run(chain, input, width: 320, workspace: FilterWorkspace(), remembering: false)) == 0)
    }

    @Test func aWorkspaceForgetsAnotherChainsColours() throws {
        let warm = try Self.chain([("warmth", 1)]), cool = try Self.chain([("warmth", -1)])
        let input = Self.picture(pixels: 64 * 64, palette: 16, seed: 9)
        let workspace = FilterWorkspace()
        _ = Self.run(warm, input, width: 64, workspace: workspace, remembering: true)
        #expect(Self.differences(Self.run(cool, input, width: 64, workspace: workspace, remembering: true),
                                 Self.run(cool, input, width: 64, workspace: FilterWorkspace(), remembering: false)) == 0)
    }
}
