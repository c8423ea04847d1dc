/// `pow(rgb, a)`, a in 0.5 … 2 (GPUImage `GammaAdjustment`).
public enum Gamma {
    public static let definition = FilterDefinition(
        type: "gamma", className: "SessionFilterGamma", category: .adjust,
        slider: .adjust(0.5, 2, identity: 1), formula: "pow(rgb, a)"
    ) { a, _ in a == 1 ? [] : [.channel(Operation(curve: PowerCurve(exponent: Float(a))))] }

    public struct Operation: ChannelOperation {
        public let curve: PowerCurve
        public func channel(_ x: Float) -> Float { curve.withTable { curve.value(x, $0) } }

        public func apply(_ row: PixelRow) {
            curve.withTable { t in
                for x in 0..<row.count {
                    row.r[x] = clampUnit(curve.value(row.r[x], t))
                    row.g[x] = clampUnit(curve.value(row.g[x], t))
                    row.b[x] = clampUnit(curve.value(row.b[x], t))
                }
            }
        }
    }
}
