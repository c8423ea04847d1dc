/// GPUImage3 `LuminanceThreshold`, a = threshold in 0.2 … 0.5 (default 0.5): white where
/// the luminance reaches the threshold, black below it.
public enum LuminanceThreshold {
    public static let definition = FilterDefinition(
        type: "luminanceThreshold", className: FilterDefinition.sdkClassName("luminanceThreshold"), category: .effect,
        slider: .percent(0.2, 0.5, default: 0.5),
        formula: "vec3(step(a, L))"
    ) { a, _ in [.pixel(Operation(threshold: Float(a)))] }

    public struct Operation: PixelOperation {
        public let threshold: Float

        public func apply(_ row: PixelRow) {
            let t = threshold
            for x in 0..<row.count {
                let v = glslStep(t, luminance(row.r[x], row.g[x], row.b[x]))
                row.r[x] = v
                row.g[x] = v
                row.b[x] = v
            }
        }
    }
}
