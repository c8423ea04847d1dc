/// GPUImage `Vibrance`, a in −1 … 1: pulls each channel toward the pixel's maximum by
/// `(max − average)·(−3a)`, so muted colours move more than saturated ones.
public enum Vibrance {
    public static let definition = FilterDefinition(
        type: "vibrance", className: "SessionFilterVibrance", category: .adjust,
        slider: .adjust(-1, 1, identity: 0),
        formula: "avg = (r+g+b)/3; mx = max(r,g,b); t = (mx − avg)·(−3a); mix(rgb, vec3(mx), t)"
    ) { a, _ in a == 0 ? [] : [.pixel(Operation(amount: Float(a)))] }

    public struct Operation: PixelOperation {
        public let amount: Float
        public func apply(_ row: PixelRow) {
            let k = -3 * amount
            for x in 0..<row.count {
                let r = row.r[x], g = row.g[x], b = row.b[x]
                let average = (r + g + b) / 3
                let mx = max(r, max(g, b))
                let t = (mx - average) * k
                row.r[x] = clampUnit(mix(r, mx, t))
                row.g[x] = clampUnit(mix(g, mx, t))
                row.b[x] = clampUnit(mix(b, mx, t))
            }
        }
    }
}
