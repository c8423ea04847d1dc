/// GPUImage3 `PinchDistortion`, a = `scale` in −2 … 0.5 (default 0.5), radius 0.5 (the
/// operation's default), centre (0.5, 0.5): inside the radius (v scaled by the aspect
/// ratio) the picture is read from `c + (uv − c)·(1 + a·(0.5 − d)/0.5)`: positive a pinches
/// toward the centre, negative a bulges out.
public enum Pinch {
    public static let definition = FilterDefinition(
        type: "pinch", className: FilterDefinition.sdkClassName("pinch"), category: .effect,
        slider: .percent(-2, 0.5, default: 0.5),
        formula: "d = distance(c, (u, v·aspect + ½ − ½·aspect)) < 0.5: sample(c + (uv − c)·(1 + a·(0.5 − d)/0.5))"
    ) { a, _ in a == 0 ? [] : [.picture(Operation(scale: Float(a)))] }

    public struct Operation: Distortion {
        public let scale: Float
        static let radius: Float = 0.5

        public func sourcePoints(width: Int, height: Int) -> (Float, Float) -> (Float, Float)? {
            let aspect = aspectRatio(width, height), scale = scale
            return { u, v in
                let x = u - 0.5, y = squareV(v, aspectRatio: aspect) - 0.5
                let d = (x * x + y * y).squareRoot()
                guard d < Self.radius else { return (u, v) }
                let percent = 1 + (0.5 - d) / 0.5 * scale
                return ((u - 0.5) * percent + 0.5, (v - 0.5) * percent + 0.5)
            }
        }
    }
}
