import ReelTestSupport
import Testing
@testable import RenderEngine

/// The LUT's vectorised row loop (`CubeLUT.blend`) against its plain per-colour definition
/// (`CubeLUT.sample`, then the mix and clamp written out here): the same bits, for the
/// usual [0, 1] domain (which skips the normalisation) and for another domain.
@Suite struct CubeLUTTests {
    @Test(arguments: [false, true])
    func theRowLoopGivesTheBitsOfThePerColourDefinition(otherDomain: Bool) throws {
        var mutator = SeededMutator(seed: 7)
        func random() -> Float { Float(mutator.next() % 1_000_001) / 1_000_000 }
        let size = 9
        let table = (0..<(size * size * size * 3)).map { _ in random() * 1.2 - 0.1 }
        let lut = try CubeLUT(size: size, table: table, domainMin: otherDomain ? [-0.1, 0.05, 0] : [0, 0, 0],
                              domainMax: otherDomain ? [1.1, 0.9, 2] : [1, 1, 1])
        let count = 4096
        var r = (0..<count).map { _ in random() * 1.3 - 0.15 }
        var g = (0..<count).map { _ in random() }
        var b = (0..<count).map { _ in random() * 1.3 - 0.15 }
        r[0] = 0; g[0] = 0; b[0] = 0
        r[1] = 1; g[1] = 1; b[1] = 1
        let amount: Float = 0.8
        let expected = (0..<count).map { i -> (Float, Float, Float) in
            let (lr, lg, lb) = lut.sample(r[i], g[i], b[i])
            func mixed(_ x: Float, _ l: Float) -> Float { min(max(x + (l - x) * amount, 0), 1) }
            return (mixed(r[i], lr), mixed(g[i], lg), mixed(b[i], lb))
        }
        r.withUnsafeMutableBufferPointer { rp in
            g.withUnsafeMutableBufferPointer { gp in
                b.withUnsafeMutableBufferPointer { bp in
                    lut.blend(rp.baseAddress!, gp.baseAddress!, bp.baseAddress!, count: count, amount: amount)
                }
            }
        }
        let mismatches = (0..<count).filter {
            r[$0].bitPattern != expected[$0].0.bitPattern || g[$0].bitPattern != expected[$0].1.bitPattern
                || b[$0].bitPattern != expected[$0].2.bitPattern
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) pixels differ, first \(mismatches.first ?? -1)")
    }
}
