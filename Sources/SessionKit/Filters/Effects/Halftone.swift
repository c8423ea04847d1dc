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
            var cell = CellCache<(Float, Float, Float)>((0, 0, 0))
            PlanarPicture.render(from: source, into: &destination) { reader, _, _, u, v in
                let (cu, cv) = grid.centre(u, v)
                let (r, g, b) = cell.value(at: cu, cv) { reader.sample(u: cu, v: cv) }
                let du = cu - u, dv = squareV(cv, aspectRatio: aspect) - squareV(v, aspectRatio: aspect)
                let radius = grid.du * 0.5 * (1 - luminance(r, g, b))
                let white = 1 - glslStep((du * du + dv * dv).squareRoot(), radius)
                return (white, white, white)
            }
        }
    }
}
