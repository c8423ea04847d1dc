/// GPUImage3 `CGAColorspaceFilter`, blended by a in 0 … 1 (default 1): the picture read on
/// a 200 × 320 grid of texture cells (at each cell's top-left corner, as the shader reads
/// it) and painted in the nearest of black, white, cyan (85/255, 1, 1) and magenta
/// (1, 85/255, 1) by RGB distance; ties go to the first in that order.
public enum CGAColorspace {
    public static let definition = FilterDefinition(
        type: "cgaColorspace", className: FilterDefinition.sdkClassName("cgaColorspace"), category: .effect,
        slider: .percent(0, 1, default: 1),
        formula: "c = sample(uv − mod(uv, (1/200, 1/320))); nearest of black, white, cyan, magenta; mix(rgb, that, a)"
    ) { a, _ in a == 0 ? [] : [.picture(Operation(amount: Float(a)))] }

    public struct Operation: PictureOperation {
        public let amount: Float
        public var needsOrientedPicture: Bool { true }
        static let palette: [(Float, Float, Float)] = [(0, 0, 0), (1, 1, 1), (85.0 / 255, 1, 1), (1, 85.0 / 255, 1)]

        @inline(__always)
        static func nearest(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
            var best = palette[0], bestDistance = Float.infinity
            for colour in palette {
                let dr = r - colour.0, dg = g - colour.1, db = b - colour.2
                let distance = (dr * dr + dg * dg + db * db).squareRoot()
                if distance < bestDistance { best = colour; bestDistance = distance }
            }
            return best
        }

        public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
            let amount = amount, width = source.width
            // A cell's corner: u alone across, v alone down.
            let columns = pixelCentres(width).map { $0 - glslMod($0, 1.0 / 200) }
            let rows = pixelCentres(source.height).map { $0 - glslMod($0, 1.0 / 320) }
            // Each column's palette colour: the same for every row that crosses the same cells.
            var cga = [Float](repeating: 0, count: 3 * width)
            cga.withUnsafeMutableBufferPointer { cga in
                let (cr, cg, cb) = (cga.baseAddress.unsafelyUnwrapped, cga.baseAddress.unsafelyUnwrapped + width,
                                    cga.baseAddress.unsafelyUnwrapped + 2 * width)
                PlanarPicture.renderRows(from: source, into: &destination) { reader, y, out in
                    let cv = rows[y]
                    if y == 0 || rows[y - 1] != cv {
                        var cell = CellCache<(Float, Float, Float)>((0, 0, 0))
                        for x in 0..<width {
                            let cu = columns[x]
                            (cr[x], cg[x], cb[x]) = cell.value(at: cu, cv) {
                                let (r, g, b) = reader.sample(u: cu, v: cv)
                                return Self.nearest(r, g, b)
                            }
                        }
                    }
                    let (r, g, b) = reader.row(y)
                    for x in 0..<width {
                        out.r[x] = clampUnit(mix(r[x], cr[x], amount))
                        out.g[x] = clampUnit(mix(g[x], cg[x], amount))
                        out.b[x] = clampUnit(mix(b[x], cb[x], amount))
                    }
                }
            }
        }
    }
}
