/// `pow(rgb, a)`, a in 0.5 … 2 (GPUImage `GammaAdjustment`).
public enum Gamma {
    public static let definition = FilterDefinition(
        type: "gamma", className: "SessionFilterGamma", category: .adjust,
        slider: .adjust(0.5, 2, identity: 1), formula: "pow(rgb, a)"
    ) { a, _ in a == 1 ? [] : [.channel(Operation(exponent: a))] }

    public struct Operation: ChannelOperation {
        public let exponent: Double
        @inline(__always) public func channel(_ x: Float) -> Float {
            Float(PortableMath.pow(Double(max(x, 0)), exponent))
        }
    }
}
