/// GPUImage3 `PolkaDot`, a = `fractionalWidthOfAPixel` in 0 … 0.05 (default 0.05), dot
/// scaling 0.9: the picture seen through round holes, one per cell of `max(a, 0.01)` of
/// the width (square in pixels), black between them. As GPUImage3's Metal shader does,
/// each pixel inside a dot keeps its own colour (the GLSL original fills the dot with the
/// colour at its centre). The distance is measured with v scaled by the aspect ratio, so
/// dots are round in pixels.
public enum PolkaDot {
    public static let definition = FilterDefinition(
        type: "polkaDot", className: FilterDefinition.sdkClassName("polkaDot"), category: .effect,
        slider: .percent(0, 0.05, default: 0.05),
        formula: "w = max(a, 0.01); c = cell centre; rgb · step(distance(c′, uv′), 0.45w), v′ = v·aspect + ½ − ½·aspect"
    ) { a, _ in [.picture(Operation(width: Float(a)))] }

    public struct Operation: PictureOperation {
        public let width: Float
        public var needsOrientedPicture: Bool { true }
        static let dotScaling: Float = 0.9

        public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
            let aspect = source.aspectRatio
            let grid = CellGrid(fractionalWidth: width, aspectRatio: aspect)
            let radius = grid.du * 0.5 * Self.dotScaling
            PlanarPicture.render(from: source, into: &destination) { reader, x, y, u, v in
                let (cu, cv) = grid.centre(u, v)
                let du = cu - u, dv = squareV(cv, aspectRatio: aspect) - squareV(v, aspectRatio: aspect)
                let inside = glslStep((du * du + dv * dv).squareRoot(), radius)
                let i = y * reader.width + x
                return (reader.r[i] * inside, reader.g[i] * inside, reader.b[i] * inside)
            }
        }
    }
}
