/// GPUImage3 `SphereRefraction`, a = `radius` in 0 … 0.25 (default 0.25), refractive
/// index 0.71, centre (0.5, 0.5): a glass ball in front of the picture, black around it.
/// Inside the radius (v scaled by the aspect ratio) the view ray (0, 0, −1) is refracted
/// by the sphere's normal `normalize(p − c, r·√(1 − (d/r)²))`, and the picture is read at
/// `(R.xy + 1)/2`, so the ball shows the whole picture turned upside down. At a = 0 the
/// ball is gone and the frame is black, as the operation draws it.
public enum SphereRefraction {
    public static let definition = FilterDefinition(
        type: "sphereRefraction", className: FilterDefinition.sdkClassName("sphereRefraction"), category: .effect,
        slider: .percent(0, 0.25, default: 0.25),
        formula: "d ≤ a: R = refract((0,0,−1), normalize(p − c, a·√(1 − (d/a)²)), 0.71); sample((R.xy + 1)/2); else black"
    ) { a, _ in [.picture(Operation(radius: Float(a)))] }

    public struct Operation: Distortion {
        public let radius: Float
        static let eta: Float = 0.71

        public func sourcePoints(width: Int, height: Int) -> (Float, Float) -> (Float, Float)? {
            let aspect = aspectRatio(width, height), r = radius, eta = Self.eta
            return { u, v in
                let x = u - 0.5, y = squareV(v, aspectRatio: aspect) - 0.5
                let d = (x * x + y * y).squareRoot()
                guard r > 0, d <= r else { return nil }
                let q = d / r
                let depth = r * (1 - q * q).squareRoot()
                let length = (x * x + y * y + depth * depth).squareRoot()
                let (nx, ny, nz) = (x / length, y / length, depth / length)
                // refract(I, N, η) with I = (0, 0, −1): N·I = −nz.
                let k = 1 - eta * eta * (1 - nz * nz)
                guard k >= 0 else { return (0.5, 0.5) }
                let along = -eta * nz + k.squareRoot()
                return ((-along * nx + 1) * 0.5, (-along * ny + 1) * 0.5)
            }
        }
    }
}
