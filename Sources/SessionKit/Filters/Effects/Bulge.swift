/// GPUImage3 `BulgeDistortion`, a = `scale` in 0 … 0.3 (default 0.3), radius 0.25, centre
/// (0.5, 0.5): inside the radius (measured with v scaled by the aspect ratio, so a circle
/// in pixels) the picture is magnified toward the centre, reading
/// `c + (uv − c)·(1 − a·(r − d)/r)²`.
public enum Bulge {
    public static let definition = FilterDefinition(
        type: "bulge", className: FilterDefinition.sdkClassName("bulge"), category: .effect,
        slider: .percent(0, 0.3, default: 0.3),
        formula: "d = distance(c, (u, (v − ½)·aspect + ½)) < 0.25: sample(c + (uv − c)·(1 − a·(0.25 − d)/0.25)²)"
    ) { a, _ in a == 0 ? [] : [.picture(Operation(scale: Float(a)))] }

    public struct Operation: Distortion {
        public let scale: Float
        static let radius: Float = 0.25

        public func sourcePoints(width: Int, height: Int) -> (Float, Float) -> (Float, Float)? {
            let aspect = aspectRatio(width, height), r = Self.radius, scale = scale
            return { u, v in
                let x = u - 0.5, y = (v - 0.5) * aspect
                let d = (x * x + y * y).squareRoot()
                guard d < r else { return (u, v) }
                var percent = 1 - (r - d) / r * scale
                percent = percent * percent
                return ((u - 0.5) * percent + 0.5, (v - 0.5) * percent + 0.5)
            }
        }
    }
}
