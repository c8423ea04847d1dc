/// GPUImage3 `SketchFilter`, a = `edgeStrength` in 0.2 … 1 (default 1): dark lines where
/// the luminance changes, on white: `1 − |∇L|·a` (`SobelGradient`), grey.
public enum Sketch {
    public static let definition = FilterDefinition(
        type: "sketch", className: FilterDefinition.sdkClassName("sketch"), category: .effect,
        slider: .percent(0.2, 1, default: 1),
        formula: "vec3(1 − |Sobel(L)|·a), neighbours one render-size pixel away"
    ) { a, _ in [.picture(Operation(strength: Float(a)))] }

    public struct Operation: GreyFromLuminance {
        public let strength: Float
        /// Neighbour distance in pixels of the picture (1 at the render size).
        public var step: Float = 1
        /// The Sobel magnitude does not change when the picture turns or mirrors.
        public var needsOrientedPicture: Bool { false }

        public func scaled(by scale: Float) -> any PictureOperation { Operation(strength: strength, step: step * scale) }

        public func grey(fromLuminance luma: [Float], width: Int, height: Int) -> [Float] {
            SobelGradient.grey(luma, width: width, height: height, step: step) { 1 - $0 * strength }
        }
    }
}
