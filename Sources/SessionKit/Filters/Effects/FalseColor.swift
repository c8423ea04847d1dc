/// GPUImage3 `FalseColor` (dark (0, 0, 0.5), bright (1, 0, 0)), blended by a in 0 … 1
/// (default 1): luminance mapped onto the line between the two colours.
public enum FalseColor {
    public static let definition = FilterDefinition(
        type: "falseColor", className: FilterDefinition.sdkClassName("falseColor"), category: .effect,
        slider: .percent(0, 1, default: 1),
        formula: "mix(rgb, mix((0, 0, 0.5), (1, 0, 0), L), a)"
    ) { a, _ in a == 0 ? [] : [.pixel(Operation(amount: Float(a)))] }

    public struct Operation: PixelOperation {
        public let amount: Float

        public func apply(_ row: PixelRow) {
            let t = amount
            for x in 0..<row.count {
                let l = luminance(row.r[x], row.g[x], row.b[x])
                row.r[x] = clampUnit(mix(row.r[x], l, t))
                row.g[x] = clampUnit(mix(row.g[x], 0, t))
                row.b[x] = clampUnit(mix(row.b[x], 0.5 - 0.5 * l, t))
            }
        }
    }
}
