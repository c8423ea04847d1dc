/// `mix(vec3(L), rgb, a)`, a in 0 … 2.3 (GPUImage `SaturationAdjustment`).
public enum Saturation {
    public static let definition = FilterDefinition(
        type: "saturation", className: "SessionFilterSaturation", category: .adjust,
        slider: .adjust(0, 2.3, identity: 1), formula: "mix(vec3(L), rgb, a)"
    ) { a, _ in a == 1 ? [] : [.pixel(Operation(amount: Float(a)))] }

    public struct Operation: PixelOperation {
        public let amount: Float
        public var isLight: Bool { true }
        public func apply(_ row: PixelRow) {
            let a = amount
            for x in 0..<row.count {
                let l = luminance(row.r[x], row.g[x], row.b[x])
                row.r[x] = clampUnit(mix(l, row.r[x], a))
                row.g[x] = clampUnit(mix(l, row.g[x], a))
                row.b[x] = clampUnit(mix(l, row.b[x], a))
            }
        }
    }
}
