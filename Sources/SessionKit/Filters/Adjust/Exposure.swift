/// `rgb · 2^a`, a in −1 … 1 (GPUImage `ExposureAdjustment`).
public enum Exposure {
    public static let definition = FilterDefinition(
        type: "exposure", className: "SessionFilterExposure", category: .adjust,
        slider: .adjust(-1, 1, identity: 0), formula: "rgb · 2^a"
    ) { a, _ in a == 0 ? [] : [.channel(Operation(factor: Float(PortableMath.exp2(a))))] }

    public struct Operation: ChannelOperation {
        /// `2^a`, computed once.
        public let factor: Float
        @inline(__always) public func channel(_ x: Float) -> Float { x * factor }
    }
}
