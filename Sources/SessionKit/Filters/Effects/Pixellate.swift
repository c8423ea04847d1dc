/// GPUImage3 `Pixellate`, a = `fractionalWidthOfAPixel` in 0 … 0.03 (default 0.03): each
/// pixel shows the colour at the centre of its cell, cells `max(a, 0.01)` of the width
/// wide and square in pixels. GPUImage3's Metal shader samples its input unchanged at
/// some commits; the GLSL original it keeps in a comment is the definition.
public enum Pixellate {
    public static let definition = FilterDefinition(
        type: "pixellate", className: FilterDefinition.sdkClassName("pixellate"), category: .effect,
        slider: .percent(0, 0.03, default: 0.03),
        formula: "d = (w, w/aspect), w = max(a, 0.01), aspect = H/W; sample(uv − mod(uv, d) + d/2)"
    ) { a, _ in [.picture(Operation(width: Float(a)))] }

    public struct Operation: PictureOperation {
        public let width: Float
        public var needsOrientedPicture: Bool { true }

        public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
            let grid = CellGrid(fractionalWidth: width, aspectRatio: source.aspectRatio)
            let (columns, rows) = grid.centres(width: source.width, height: source.height)
            var cell = CellCache<(Float, Float, Float)>((0, 0, 0))
            PlanarPicture.renderRows(from: source, into: &destination) { reader, y, out in
                let cv = rows[y]
                if y > 0, rows[y - 1] == cv { return out.repeatRowAbove() }
                for x in 0..<out.width {
                    let cu = columns[x]
                    out.set(x, cell.value(at: cu, cv) { reader.sample(u: cu, v: cv) })
                }
            }
        }
    }
}
