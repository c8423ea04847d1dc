/// Darkens toward the corners, slider 0 … 100 → a in 0 … 1 (identity 0): black, centre
/// (0.5, 0.5), start 0.3, end 0.8 as the SDK documents them; the distance is taken in
/// texture coordinates (not aspect-corrected, as GPUImage). How the slider drives it is
/// ReelFarm's definition: `mix(rgb, black, a · smoothstep(0.3, 0.8, d))`.
public enum Vignette {
    public static let definition = FilterDefinition(
        type: "vignette", className: "SessionFilterVignette", category: .adjust,
        slider: .percent(0, 1, default: 0),
        formula: "d = distance(uv, (0.5, 0.5)); mix(rgb, vec3(0), a·smoothstep(0.3, 0.8, d))"
    ) { a, _ in a == 0 ? [] : [.pixel(Operation(amount: Float(a)))] }

    public struct Operation: PixelOperation {
        public let amount: Float
        public var dependsOnPosition: Bool { true }

        public func apply(_ row: PixelRow) {
            let v = (Float(row.y) + 0.5) / Float(row.height) - 0.5
            let w = Float(row.width)
            for x in 0..<row.count {
                let u = (Float(x) + 0.5) / w - 0.5
                let keep = 1 - amount * smoothstep(0.3, 0.8, (u * u + v * v).squareRoot())
                row.r[x] = clampUnit(row.r[x] * keep)
                row.g[x] = clampUnit(row.g[x] * keep)
                row.b[x] = clampUnit(row.b[x] * keep)
            }
        }
    }
}
