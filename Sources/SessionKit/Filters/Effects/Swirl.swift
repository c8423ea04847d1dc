/// GPUImage3 `SwirlDistortion`, a = `angle` in 0 … 1 (default 1), radius 0.5, centre
/// (0.5, 0.5): inside the radius, the picture is turned about the centre by
/// `θ = 8a·((r − d)/r)²`, most at the centre. Distances are in texture coordinates, not
/// corrected for the aspect ratio, as the shader measures them. θ depends on d only, so
/// its sine and cosine come from a table over d (4096 steps, linear), not per pixel;
/// the engine maps the coordinates once per picture size (`SampleMap`).
public enum Swirl {
    public static let definition = FilterDefinition(
        type: "swirl", className: FilterDefinition.sdkClassName("swirl"), category: .effect,
        slider: .percent(0, 1, default: 1),
        formula: "d = distance(uv, c) < 0.5: θ = 8a·((0.5 − d)/0.5)²; sample(c + rotate(uv − c, θ))"
    ) { a, _ in a == 0 ? [] : [.picture(Operation(angle: a))] }

    public struct Operation: Distortion {
        public let angle: Double
        static let radius: Float = 0.5, steps = 4096

        /// (sin θ, cos θ) at d = i·r/steps, i = 0 … steps.
        func table() -> [(Float, Float)] {
            (0...Self.steps).map { i in
                let percent = 1 - Double(i) / Double(Self.steps)
                let (s, c) = PortableMath.sinCos(percent * percent * angle * 8)
                return (Float(s), Float(c))
            }
        }

        public func sourcePoints(width: Int, height: Int) -> (Float, Float) -> (Float, Float)? {
            let turns = table(), r = Self.radius, perStep = Float(Self.steps) / Self.radius
            return { u, v in
                let x = u - 0.5, y = v - 0.5
                let d = (x * x + y * y).squareRoot()
                guard d < r else { return (u, v) }
                let t = d * perStep
                let i = min(Int(t), Self.steps - 1)
                let f = t - Float(i)
                let s = mix(turns[i].0, turns[i + 1].0, f), c = mix(turns[i].1, turns[i + 1].1, f)
                return (x * c - y * s + 0.5, x * s + y * c + 0.5)
            }
        }
    }
}
