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
            // ⌊10c + ½⌋ for c in [0, 1] is a whole number 0 … 10: truncation, which
            // vectorises, gives the same value as floor for these non-negative inputs.
            @inline(__always)
            func posterize(_ c: Float) -> Float { Float(Int32(c * Self.levels + 0.5)) / Self.levels }
            PlanarPicture.renderRows(from: source, into: &destination) { reader, y, out in
                let (r, g, b) = reader.row(y)
                m.withUnsafeBufferPointer { m in
                    let edges = m.baseAddress.unsafelyUnwrapped + y * out.width
                    for x in 0..<out.width {
                        let keep = 1 - glslStep(threshold, edges[x])
                        out.set(x, (posterize(r[x]) * keep, posterize(g[x]) * keep, posterize(b[x]) * keep))
                    }
                }
            }
        }
    }
}
