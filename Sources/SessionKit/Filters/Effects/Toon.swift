/// GPUImage3 `ToonFilter`, a = `threshold` in 1 … 0.1 (default 0.1), 10 quantization
/// levels: the colours posterized to `⌊10c + ½⌋/10`, black wherever the Sobel magnitude of
/// the luminance (`SobelGradient`) reaches the threshold. The edges are found on
/// luminance, as GPUImage runs the shader on a luminance picture; the colours are the
/// pixel's own.
public enum Toon {
    public static let definition = FilterDefinition(
        type: "toon", className: FilterDefinition.sdkClassName("toon"), category: .effect,
        slider: .percent(1, 0.1, default: 0.1),
        formula: "⌊10·rgb + ½⌋/10 · (1 − step(a, |Sobel(L)|))"
    ) { a, _ in [.picture(Operation(threshold: Float(a)))] }

    public struct Operation: PictureOperation {
        public let threshold: Float
        /// Neighbour distance in pixels of the picture (1 at the render size).
        public var step: Float = 1
        public var needsOrientedPicture: Bool { false }
        static let levels: Float = 10

        public func scaled(by scale: Float) -> any PictureOperation { Operation(threshold: threshold, step: step * scale) }

        public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
            let m = SobelGradient.magnitudes(of: source, step: step)
            func posterize(_ c: Float) -> Float { (c * Self.levels + 0.5).rounded(.down) / Self.levels }
            for i in m.indices {
                let keep = 1 - glslStep(threshold, m[i])
                destination.r[i] = clampUnit(posterize(source.r[i]) * keep)
                destination.g[i] = clampUnit(posterize(source.g[i]) * keep)
                destination.b[i] = clampUnit(posterize(source.b[i]) * keep)
            }
        }
    }
}
