/// GPUImage3 `Halftone`, a = `fractionalWidthOfAPixel` in 0.004 … 0.01 (default 0.01):
/// black dots on white, one per cell, each dot's radius `½w·(1 − L)` of the colour at the
/// cell's centre. GPUImage3's setter clamps the width to at least 0.01, so the whole
/// slider renders at 0.01 — what the SDK shows.
public enum Halftone {
    public static let definition = FilterDefinition(
        type: "halftone", className: FilterDefinition.sdkClassName("halftone"), category: .effect,
        slider: .percent(0.004, 0.01, default: 0.01),
        formula: "w = max(a, 0.01); c = cell centre; 1 − step(distance(c′, uv′), ½w·(1 − L(sample(c)))), grey"
    ) { a, _ in [.picture(Operation(width: Float(a)))] }

    public struct Operation: PictureOperation {
        public let width: Float
        public var needsOrientedPicture: Bool { true }

        public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
            let aspect = source.aspectRatio
            let grid = CellGrid(fractionalWidth: width, aspectRatio: aspect)
            let (columns, rows) = grid.centres(width: source.width, height: source.height)
            let us = pixelCentres(source.width), vs = pixelCentres(source.height)
            // Each column's dot radius, from its cell's centre colour: the same for every row
            // that crosses the same cells.
            var radii = [Float](repeating: 0, count: source.width)
            PlanarPicture.renderRows(from: source, into: &destination) { reader, y, out in
                let cv = rows[y]
                if y == 0 || rows[y - 1] != cv {
                    var cell = CellCache<Float>(0)
                    for x in radii.indices {
                        let cu = columns[x]
                        radii[x] = cell.value(at: cu, cv) {
                            let (r, g, b) = reader.sample(u: cu, v: cv)
                            return grid.du * 0.5 * (1 - luminance(r, g, b))
                        }
                    }
                }
                let dv = squareV(cv, aspectRatio: aspect) - squareV(vs[y], aspectRatio: aspect)
                for x in 0..<out.width {
                    let du = columns[x] - us[x]
                    let white = 1 - glslStep((du * du + dv * dv).squareRoot(), radii[x])
                    out.set(x, (white, white, white))
                }
            }
        }
    }
}
