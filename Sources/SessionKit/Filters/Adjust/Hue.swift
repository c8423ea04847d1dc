/// GPUImage `HueAdjustment`, a in −π … π radians: the chroma of each pixel, in YIQ, is
/// turned by −a. A rotation of (I, Q) is linear, so the whole filter is one 3×3 matrix on
/// RGB, computed once: `I' = I·cos a + Q·sin a`, `Q' = Q·cos a − I·sin a`.
public enum Hue {
    public static let definition = FilterDefinition(
        type: "hue", className: "SessionFilterHue", category: .adjust,
        slider: .adjust(-PortableMath.pi, PortableMath.pi, identity: 0),
        formula: "YIQ: h = atan2(Q, I) − a, C = √(I²+Q²); I = C·cos h, Q = C·sin h; back to RGB"
    ) { a, _ in a == 0 ? [] : [.pixel(Operation(angle: a))] }

    public struct Operation: PixelOperation {
        /// Row-major RGB → RGB.
        public let m: [Float]

        public init(angle a: Double) {
            let toYIQ: [[Double]] = [[0.299, 0.587, 0.114], [0.595716, -0.274453, -0.321263], [0.211456, -0.522591, 0.31135]]
            let toRGB: [[Double]] = [[1, 0.9563, 0.6210], [1, -0.2721, -0.6474], [1, -1.1070, 1.7046]]
            let (s, c) = PortableMath.sinCos(a)
            let turn: [[Double]] = [[1, 0, 0], [0, c, s], [0, -s, c]]
            m = Matrix3.product(toRGB.flatMap { $0 }, Matrix3.product(turn.flatMap { $0 }, toYIQ.flatMap { $0 })).map(Float.init)
        }

        public func apply(_ row: PixelRow) {
            let m = m
            for x in 0..<row.count {
                let r = row.r[x], g = row.g[x], b = row.b[x]
                row.r[x] = clampUnit(m[0] * r + m[1] * g + m[2] * b)
                row.g[x] = clampUnit(m[3] * r + m[4] * g + m[5] * b)
                row.b[x] = clampUnit(m[6] * r + m[7] * g + m[8] * b)
            }
        }
    }
}
