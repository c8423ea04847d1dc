/// `(rgb − 0.5)·a + 0.5`, a in 0.3 … 1.8 (GPUImage `ContrastAdjustment`).
public enum Contrast {
    public static let definition = FilterDefinition(
        type: "contrast", className: "SessionFilterContrast", category: .adjust,
        slider: .adjust(0.3, 1.8, identity: 1), formula: "(rgb − 0.5)·a + 0.5"
    ) { a, _ in a == 1 ? [] : [.channel(Operation(factor: Float(a)))] }

    public struct Operation: ChannelOperation {
        public let factor: Float
        @inline(__always) public func channel(_ x: Float) -> Float { (x - 0.5) * factor + 0.5 }
    }
}
