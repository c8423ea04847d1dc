/// GPUImage3 `TiltShift`: a Gaussian-blurred copy (σ = 7 render-size pixels, GPUImage's
/// default `blurRadiusInPixels`) mixed in above and below a sharp band from v = 0.4 to
/// 0.6 (the operation's default focus levels). The slider drives `focusFallOffRate`,
/// 0.4 … 0 (default 0): how gradually the blur sets in. At 0 the band's edges are hard
/// (`smoothstep(e, e, v)` is taken as `step(e, v)`); this mapping is ReelFarm's reading of
/// the SDK's range (docs/filters.md).
public enum TiltShift {
    public static let definition = FilterDefinition(
        type: "tiltShift", className: FilterDefinition.sdkClassName("tiltShift"), category: .effect,
        slider: .percent(0.4, 0, default: 0),
        formula: "t = 1 − smoothstep(0.4 − a, 0.4, v) + smoothstep(0.6, 0.6 + a, v); mix(rgb, blur7(rgb), t)"
    ) { a, _ in [.picture(Operation(fallOff: Float(a)))] }

    public struct Operation: PictureOperation {
        public let fallOff: Float
        public var sigma: Double = 7
        public var needsOrientedPicture: Bool { true }
        static let top: Float = 0.4, bottom: Float = 0.6

        public func scaled(by scale: Float) -> any PictureOperation {
            Operation(fallOff: fallOff, sigma: sigma * Double(scale))
        }

        /// GLSL's smoothstep, with an empty edge read as a step.
        static func edge(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
            e1 > e0 ? smoothstep(e0, e1, x) : glslStep(e0, x)
        }

        /// How much of the blurred copy row `y` of `height` shows.
        func blurAmount(row y: Int, height: Int) -> Float {
            let v = (Float(y) + 0.5) / Float(height)
            let t = 1 - Self.edge(Self.top - fallOff, Self.top, v) + Self.edge(Self.bottom, Self.bottom + fallOff, v)
            return clampUnit(t)
        }

        public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
            GaussianKernel(sigma: sigma).blur(source, into: &destination)
            let w = source.width
            for y in 0..<source.height {
                let t = blurAmount(row: y, height: source.height)
                guard t < 1 else { continue }
                for i in (y * w)..<(y * w + w) {
                    destination.r[i] = mix(source.r[i], destination.r[i], t)
                    destination.g[i] = mix(source.g[i], destination.g[i], t)
                    destination.b[i] = mix(source.b[i], destination.b[i], t)
                }
            }
        }
    }
}
