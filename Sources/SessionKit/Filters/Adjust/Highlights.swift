/// GPUImage `HighlightsAndShadows` with shadows 0, slider 0 … 100 → a in 0 … 1 (identity 1):
/// darkens bright areas by scaling each pixel to a new luminance `L + hi`.
public enum Highlights {
    public static let definition = FilterDefinition(
        type: "highlights", className: "SessionFilterHighlights", category: .adjust,
        slider: .percent(0, 1, default: 1),
        formula: "hi = clamp(1 − (pow(1−L, 1/(2−a)) − 0.8·pow(1−L, 2/(2−a))) − L, −1, 0); rgb·(L + hi)/L"
    ) { a, _ in a == 1 ? [] : [.pixel(Operation(amount: a))] }

    public struct Operation: PixelOperation {
        public let amount: Double

        public func apply(_ row: PixelRow) {
            let k = Float(1 / (2 - amount))
            row.forEachLanes { r, g, b in
                let l = r * 0.2125 + g * 0.7154 + b * 0.0721
                let p = PortableMath.pow((1 - l).clamped(lowerBound: .zero, upperBound: .one), k)   // pow(1−L, 2k) = p²
                let hi = (1 - (p - 0.8 * p * p) - l).clamped(lowerBound: .init(repeating: -1), upperBound: .zero)
                return scaledToLuminance(r, g, b, l, l + hi)
            }
        }
    }
}

/// `rgb · target / L`, 0 where L = 0 (the shared last step of highlights and shadows).
@inline(__always)
func scaledToLuminance(_ r: PortableMath.Lanes, _ g: PortableMath.Lanes, _ b: PortableMath.Lanes,
                       _ l: PortableMath.Lanes, _ target: PortableMath.Lanes)
    -> (PortableMath.Lanes, PortableMath.Lanes, PortableMath.Lanes) {
    let dark = l .<= 0
    var f = target / l.replacing(with: 1, where: dark)
    f.replace(with: 0, where: dark)
    return (r * f, g * f, b * f)
}
