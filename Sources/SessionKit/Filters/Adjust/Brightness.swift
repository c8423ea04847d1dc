/// `rgb + a`, a in −0.18 … 0.18 (GPUImage `BrightnessAdjustment`).
public enum Brightness {
    public static let definition = FilterDefinition(
        type: "brightness", className: "SessionFilterBrightness", category: .adjust,
        slider: .adjust(-0.18, 0.18, identity: 0), formula: "rgb + a"
    ) { a, _ in a == 0 ? [] : [.channel(Operation(amount: Float(a)))] }

    public struct Operation: ChannelOperation {
        public let amount: Float
        @inline(__always) public func channel(_ x: Float) -> Float { x + amount }
    }
}
