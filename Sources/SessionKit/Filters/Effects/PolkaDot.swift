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
            let (columns, rows) = grid.centres(width: source.width, height: source.height)
            let us = pixelCentres(source.width), vs = pixelCentres(source.height)
            PlanarPicture.renderRows(from: source, into: &destination) { reader, y, out in
                let dv = squareV(rows[y], aspectRatio: aspect) - squareV(vs[y], aspectRatio: aspect)
                let (r, g, b) = reader.row(y)
                for x in 0..<out.width {
                    let du = columns[x] - us[x]
                    let inside = glslStep((du * du + dv * dv).squareRoot(), radius)
                    out.set(x, (r[x] * inside, g[x] * inside, b[x] * inside))
                }
            }
        }
    }
}
