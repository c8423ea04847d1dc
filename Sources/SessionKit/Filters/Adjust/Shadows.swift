/// GPUImage `HighlightsAndShadows` with highlights 1, slider 0 … 100 → a in 0 … 1
/// (identity 0): lifts dark areas by scaling each pixel to a new luminance `L + sh`.
public enum Shadows {
    public static let definition = FilterDefinition(
        type: "shadows", className: "SessionFilterShadows", category: .adjust,
        slider: .percent(0, 1, default: 0),
        formula: "sh = clamp(pow(L, 1/(a+1)) − 0.76·pow(L, 2/(a+1)) − L, 0, 1); rgb·(L + sh)/L"
    ) { a, _ in a == 0 ? [] : [.pixel(Operation(amount: a))] }

    public struct Operation: PixelOperation {
        public let amount: Double

        public func apply(_ row: PixelRow) {
            let k = Float(1 / (amount + 1))
            row.forEachLanes { r, g, b in
                let l = r * 0.2125 + g * 0.7154 + b * 0.0721
                let p = PortableMath.pow(l, k)   // pow(L, 2k) = p²
                let sh = (p - 0.76 * p * p - l).clamped(lowerBound: .zero, upperBound: .one)
                return scaledToLuminance(r, g, b, l, l + sh)
            }
        }
    }
}
