/// GPUImage `HighlightsAndShadows` with highlights 1, slider 0 … 100 → a in 0 … 1
/// (identity 0): lifts dark areas by scaling each pixel to a new luminance `L + sh`.
public enum Shadows {
    public static let definition = FilterDefinition(
        type: "shadows", className: "SessionFilterShadows", category: .adjust,
        slider: .percent(0, 1, default: 0),
        formula: "sh = clamp(pow(L, 1/(a+1)) − 0.76·pow(L, 2/(a+1)) − L, 0, 1); rgb·(L + sh)/L"
    ) { a, _ in a == 0 ? [] : [.pixel(Operation(curve: PowerCurve(exponent: Float(1 / (a + 1)))))] }

    public struct Operation: PixelOperation {
        /// `x^(1/(a+1))`.
        public let curve: PowerCurve

        public func apply(_ row: PixelRow) {
            curve.withTable { t in
                for x in 0..<row.count {
                    let l = luminance(row.r[x], row.g[x], row.b[x])
                    let p = curve.value(l, t)   // pow(L, 2k) = p²
                    let sh = min(max(p - 0.76 * p * p - l, 0), 1)
                    scaleToLuminance(row, x, l, l + sh)
                }
            }
        }
    }
}
