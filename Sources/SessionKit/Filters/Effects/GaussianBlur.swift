/// GPUImage3 `GaussianBlur` (Metal Performance Shaders' Gaussian), a = sigma in 0 … 15
/// render-size pixels (default 15); a separable kernel to ⌈3σ⌉ (`GaussianKernel`), edges
/// clamped as the catalogue's pixel model reads outside the frame.
public enum GaussianBlur {
    public static let definition = FilterDefinition(
        type: "gaussianBlur", className: FilterDefinition.sdkClassName("gaussianBlur"), category: .effect,
        slider: .percent(0, 15, default: 15),
        formula: "Gaussian of σ = a render-size pixels, separable, to ⌈3σ⌉, edges clamped"
    ) { a, _ in a == 0 ? [] : [.picture(Operation(sigma: a))] }

    public struct Operation: PictureOperation {
        public let sigma: Double
        /// The kernel is symmetric under every turn and mirror.
        public var needsOrientedPicture: Bool { false }

        public func scaled(by scale: Float) -> any PictureOperation { Operation(sigma: sigma * Double(scale)) }

        public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
            GaussianKernel(sigma: sigma).blur(source, into: &destination)
        }
    }
}
