/// GPUImage `Sharpen`, a in −1 … 2 (identity 0): `c·(1 + 4a) − a·(left + right + top +
/// bottom)`, neighbours one pixel away at the render size, edges clamped.
public enum Sharpness {
    public static let definition = FilterDefinition(
        type: "sharpness", className: "SessionFilterSharpness", category: .adjust,
        slider: .adjust(-1, 2, identity: 0),
        formula: "c·(1 + 4a) − a·(left + right + top + bottom)"
    ) { a, _ in a == 0 ? [] : [.picture(Operation(amount: Float(a)))] }

    public struct Operation: PictureOperation {
        public let amount: Float
        /// The 4-neighbour kernel is symmetric under every rotation and mirror.
        public var needsOrientedPicture: Bool { false }

        public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
            let w = source.width, h = source.height
            let centre = 1 + 4 * amount, edge = amount
            func run(_ s: [Float], _ d: inout [Float]) {
                s.withUnsafeBufferPointer { s in
                    d.withUnsafeMutableBufferPointer { d in
                        for y in 0..<h {
                            let up = max(y - 1, 0) * w, row = y * w, down = min(y + 1, h - 1) * w
                            for x in 0..<w {
                                let left = max(x - 1, 0), right = min(x + 1, w - 1)
                                let around = s[row + left] + s[row + right] + s[up + x] + s[down + x]
                                d[row + x] = clampUnit(s[row + x] * centre - around * edge)
                            }
                        }
                    }
                }
            }
            run(source.r, &destination.r)
            run(source.g, &destination.g)
            run(source.b, &destination.b)
        }
    }
}
