/// GPUImage3 `ToonFilter`, a = `threshold` in 1 … 0.1 (default 0.1), 10 quantization
/// levels: the colours posterized to `⌊10c + ½⌋/10`, black wherever the Sobel magnitude of
/// the luminance (`SobelGradient`) reaches the threshold. The edges are found on
/// luminance, as GPUImage runs the shader on a luminance picture; the colours are the
/// pixel's own.
public enum Toon {
    public static let definition = FilterDefinition(
        type: "toon", className: FilterDefinition.sdkClassName("toon"), category: .effect,
        slider: .percent(1, 0.1, default: 0.1),
        formula: "⌊10·rgb + ½⌋/10 · (1 − step(a, |Sobel(L)|))"
    ) { a, _ in [.picture(Operation(threshold: Float(a)))] }

    public struct Operation: PictureOperation {
        public let threshold: Float
        /// Neighbour distance in pixels of the picture (1 at the render size).
        public var step: Float = 1
        public var needsOrientedPicture: Bool { false }
        static let levels: Float = 10

        public func scaled(by scale: Float) -> any PictureOperation { Operation(threshold: threshold, step: step * scale) }

        public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
            let m = SobelGradient.magnitudes(of: source, step: step), threshold = threshold
            // ⌊10c + ½⌋ for c in [0, 1] is 0 … 10. Adding 2²³ rounds 10c to the nearest whole
            // number in the float's own arithmetic (the same but at exact halves, which
            // 8-bit inputs never give) and, unlike a conversion to an integer, vectorises.
            @inline(__always)
            func posterize(_ c: Float) -> Float { ((c * Self.levels + 0x1p23) - 0x1p23) * (1 / Self.levels) }
            PlanarPicture.renderRows(from: source, into: &destination) { reader, y, out in
                let (r, g, b) = reader.row(y)
                m.withUnsafeBufferPointer { m in
                    let edges = m.baseAddress.unsafelyUnwrapped + y * out.width
                    for x in 0..<out.width {
                        let keep: Float = edges[x] < threshold ? 1 : 0
                        out.r[x] = posterize(r[x]) * keep
                        out.g[x] = posterize(g[x]) * keep
                        out.b[x] = posterize(b[x]) * keep
                    }
                }
            }
        }
    }
}
