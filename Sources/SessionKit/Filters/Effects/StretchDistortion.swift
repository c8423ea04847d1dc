/// GPUImage3 `StretchDistortion` with its centre at (a, a), a in 0 … 0.5 (default 0.5, the
/// operation's default centre): about the centre, each axis is read at
/// `p·(½ + ½·smoothstep(0.25, 0.5, |p|))` in coordinates 2uv − 1, stretching the middle of
/// the picture outward. The slider moves the centre along the diagonal toward the top-left
/// corner; this mapping is ReelFarm's reading of the SDK's range (docs/filters.md).
public enum StretchDistortion {
    public static let definition = FilterDefinition(
        type: "stretchDistortion", className: FilterDefinition.sdkClassName("stretchDistortion"), category: .effect,
        slider: .percent(0, 0.5, default: 0.5),
        formula: "c = (a, a); p = 2uv − 2c; p′ = sign(p)·(½|p| + ½·smoothstep(0.25, 0.5, |p|)·|p|); sample((p′ + 2c − 1)/2 + ½)"
    ) { a, _ in [.picture(Operation(centre: Float(a)))] }

    public struct Operation: Distortion {
        public let centre: Float

        @inline(__always)
        static func stretch(_ p: Float) -> Float {
            let m = p < 0 ? -p : p
            let s = 0.5 * m + 0.5 * smoothstep(0.25, 0.5, m) * m
            return p < 0 ? -s : s
        }

        public func sourcePoints(width: Int, height: Int) -> (Float, Float) -> (Float, Float)? {
            let c = 2 * centre - 1
            return { u, v in
                let x = Self.stretch(2 * u - 1 - c) + c, y = Self.stretch(2 * v - 1 - c) + c
                return (x / 2 + 0.5, y / 2 + 0.5)
            }
        }
    }
}
