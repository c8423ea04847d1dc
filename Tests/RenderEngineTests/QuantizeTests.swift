import Testing
@testable import RenderEngine

/// `quantize` reads its integer from the float's bits so that loops over it vectorise;
/// it must still be the plain definition: ⌊x·255 + 0.5⌋ clamped to 0 … 255.
@Suite struct QuantizeTests {
    static func definition(_ x: Float) -> UInt8 {
        let scaled = Double(x * 255 + 0.5)
        return UInt8(max(0, min(255, scaled.rounded(.down))))
    }

    @Test func everyStepOfTheUnitRangeAndBeyondGivesTheDefinition() {
        // 2¹⁸ steps over [-0.25, 1.25]: every code value, both sides of every rounding
        // boundary, and the clamps.
        let steps = 1 << 18
        let wrong = (0...steps).filter { i in
            let x = Float(-0.25 + 1.5 * Double(i) / Double(steps))
            return quantize(x) != Self.definition(x)
        }
        #expect(wrong.isEmpty, "\(wrong.count) values differ, first at step \(wrong.first ?? -1)")
    }

    @Test func boundariesAndExtremes() {
        let cases: [(Float, UInt8)] = [(0, 0), (1, 255), (-1, 0), (2, 255), (-.greatestFiniteMagnitude, 0),
                                       (.greatestFiniteMagnitude, 255), (0.5 / 255, 1), (0.5 / 255 - 1e-6, 0),
                                       (127.5 / 255, 128), (-.infinity, 0), (.infinity, 255)]
        for (x, expected) in cases {
            #expect(quantize(x) == expected, "quantize(\(x))")
        }
    }
}
