/// GPUImage `WhiteBalance` with tint 0, a in 3000 … 11000 K (identity 5000): a round trip
/// through the shader's YIQ matrices (column-major there, so transposed from the usual
/// YIQ) with Q clamped, then an overlay toward a warm colour, blended by `t`.
public enum Warmth {
    public static let definition = FilterDefinition(
        type: "warmth", className: "SessionFilterWarmth", category: .adjust,
        slider: .adjust(3000, 11000, identity: 5000),
        formula: "t = a < 5000 ? 0.0004(a − 5000) : 0.00006(a − 5000); YIQ round trip with Q clamped to ±0.5226; "
            + "overlay with w = (0.93, 0.54, 0); mix(rgb', overlay, t)"
    ) { a, _ in a == 5000 ? [] : [.pixel(Operation(temperature: a))] }

    public struct Operation: PixelOperation {
        public let t: Float

        public init(temperature a: Double) {
            t = Float(a < 5000 ? 0.0004 * (a - 5000) : 0.00006 * (a - 5000))
        }

        @inline(__always) static func overlay(_ c: Float, _ w: Float) -> Float {
            c < 0.5 ? 2 * c * w : 1 - 2 * (1 - c) * (1 - w)
        }

        public func apply(_ row: PixelRow) {
            let t = t
            for x in 0..<row.count {
                let r = row.r[x], g = row.g[x], b = row.b[x]
                let y = 0.299 * r + 0.596 * g + 0.212 * b
                let i = 0.587 * r - 0.274 * g - 0.523 * b
                let q = min(max(0.114 * r - 0.322 * g + 0.311 * b, -0.5226), 0.5226)
                let r1 = y + i + q
                let g1 = 0.956 * y - 0.272 * i - 1.105 * q
                let b1 = 0.621 * y - 0.647 * i + 1.702 * q
                row.r[x] = clampUnit(mix(r1, Self.overlay(r1, 0.93), t))
                row.g[x] = clampUnit(mix(g1, Self.overlay(g1, 0.54), t))
                row.b[x] = clampUnit(mix(b1, Self.overlay(b1, 0), t))
            }
        }
    }
}
