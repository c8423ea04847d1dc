/// GPUImage3 `SepiaToneFilter` (a `ColorMatrixFilter`), a = intensity in 0 … 1 (default 1):
/// `mix(rgb, M·rgb, a)` with the rows of M (0.3588, 0.7044, 0.1368),
/// (0.2990, 0.5870, 0.1140), (0.2392, 0.4696, 0.0912).
public enum SepiaTone {
    public static let definition = FilterDefinition(
        type: "sepiaTone", className: FilterDefinition.sdkClassName("sepiaTone"), category: .effect,
        slider: .percent(0, 1, default: 1),
        formula: "mix(rgb, M·rgb, a), M = [.3588 .7044 .1368; .2990 .5870 .1140; .2392 .4696 .0912]"
    ) { a, _ in a == 0 ? [] : [.pixel(Operation(amount: Float(a)))] }

    public struct Operation: PixelOperation {
        public let amount: Float

        public func apply(_ row: PixelRow) {
            let t = amount
            for x in 0..<row.count {
                let r = row.r[x], g = row.g[x], b = row.b[x]
                row.r[x] = clampUnit(mix(r, 0.3588 * r + 0.7044 * g + 0.1368 * b, t))
                row.g[x] = clampUnit(mix(g, 0.2990 * r + 0.5870 * g + 0.1140 * b, t))
                row.b[x] = clampUnit(mix(b, 0.2392 * r + 0.4696 * g + 0.0912 * b, t))
            }
        }
    }
}
