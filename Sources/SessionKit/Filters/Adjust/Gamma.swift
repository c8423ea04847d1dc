/// `pow(rgb, a)`, a in 0.5 … 2 (GPUImage `GammaAdjustment`).
public enum Gamma {
    public static let definition = FilterDefinition(
        type: "gamma", className: "SessionFilterGamma", category: .adjust,
        slider: .adjust(0.5, 2, identity: 1), formula: "pow(rgb, a)"
    ) { a, _ in a == 1 ? [] : [.channel(Operation(exponent: Float(a)))] }

    public struct Operation: ChannelOperation {
        public let exponent: Float
        @inline(__always) public func channel(_ x: Float) -> Float { PortableMath.pow(x, exponent) }

        public func apply(_ row: PixelRow) {
            let k = exponent
            row.forEachLanes { r, g, b in (PortableMath.pow(r, k), PortableMath.pow(g, k), PortableMath.pow(b, k)) }
        }
    }
}
