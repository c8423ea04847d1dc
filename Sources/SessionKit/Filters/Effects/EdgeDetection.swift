/// GPUImage3 `SobelEdgeDetection`, a = `edgeStrength` in 0 … 1.5 (default 1.5): light
/// lines where the luminance changes, on black: `|∇L|·a` (`SobelGradient`), grey.
public enum EdgeDetection {
    public static let definition = FilterDefinition(
        type: "edgeDetection", className: FilterDefinition.sdkClassName("edgeDetection"), category: .effect,
        slider: .percent(0, 1.5, default: 1.5),
        formula: "vec3(|Sobel(L)|·a), neighbours one render-size pixel away"
    ) { a, _ in [.picture(Operation(strength: Float(a)))] }

    public struct Operation: GreyFromLuminance {
        public let strength: Float
        /// Neighbour distance in pixels of the picture (1 at the render size).
        public var step: Float = 1
        public var needsOrientedPicture: Bool { false }

        public func scaled(by scale: Float) -> any PictureOperation { Operation(strength: strength, step: step * scale) }

        public func grey(fromLuminance luma: [Float], width: Int, height: Int) -> [Float] {
            SobelGradient.grey(luma, width: width, height: height, step: step) { $0 * strength }
        }
    }
}
