/// GPUImage `HighlightsAndShadows` with shadows 0, slider 0 … 100 → a in 0 … 1 (identity 1):
/// darkens bright areas by scaling each pixel to a new luminance `L + hi`.
public enum Highlights {
    public static let definition = FilterDefinition(
        type: "highlights", className: "SessionFilterHighlights", category: .adjust,
        slider: .percent(0, 1, default: 1),
        formula: "hi = clamp(1 − (pow(1−L, 1/(2−a)) − 0.8·pow(1−L, 2/(2−a))) − L, −1, 0); rgb·(L + hi)/L"
    ) { a, _ in a == 1 ? [] : [.pixel(Operation(curve: PowerCurve(exponent: Float(1 / (2 - a)))))] }

    public struct Operation: PixelOperation {
        /// `x^(1/(2−a))`.
        public let curve: PowerCurve

        public func apply(_ row: PixelRow) {
            curve.withTable { t in
                for x in 0..<row.count {
                    let l = luminance(row.r[x], row.g[x], row.b[x])
                    let p = curve.value(1 - l, t)   // pow(1−L, 2k) = p²
                    let hi = min(max(1 - (p - 0.8 * p * p) - l, -1), 0)
                    scaleToLuminance(row, x, l, l + hi)
                }
            }
        }
    }
}

/// `rgb · target / L`, 0 where L = 0 (the shared last step of highlights and shadows).
@inline(__always)
func scaleToLuminance(_ row: PixelRow, _ x: Int, _ l: Float, _ target: Float) {
    guard l > 0 else {
        row.r[x] = 0; row.g[x] = 0; row.b[x] = 0
        return
    }
    let f = target / l
    row.r[x] = clampUnit(row.r[x] * f)
    row.g[x] = clampUnit(row.g[x] * f)
    row.b[x] = clampUnit(row.b[x] * f)
}
