/// The gradient magnitude GPUImage's Sketch, Toon and SobelEdgeDetection compute: the
/// 3×3 Sobel operator on luminance `L = dot(rgb, (0.2125, 0.7154, 0.0721))`,
/// `h = −tl − 2t − tr + bl + 2b + br`, `v = −bl − 2l − tl + br + 2r + tr`, `|∇| = √(h² + v²)`.
/// Neighbours are `step` pixels away (1 at the render size; a thumbnail's step is its
/// scale, read bilinearly), edges clamped. GPUImage3's Sketch and Sobel shaders read the
/// bottom texel where they name the bottom-left one; ReelFarm uses the true bottom-left
/// (docs/filters.md explains why), so the magnitude does not depend on orientation.
enum SobelGradient {
    /// One magnitude per pixel of `picture`, row-major.
    static func magnitudes(of picture: PlanarPicture, step: Float) -> [Float] {
        let w = picture.width, h = picture.height
        var luma = [Float](repeating: 0, count: w * h)
        for i in 0..<(w * h) { luma[i] = luminance(picture.r[i], picture.g[i], picture.b[i]) }
        return step == 1 ? unitStep(luma, w, h) : scaledStep(luma, w, h, step)
    }

    @inline(__always)
    static func magnitude(tl: Float, t: Float, tr: Float, l: Float, r: Float, bl: Float, b: Float, br: Float) -> Float {
        let hh = -tl - 2 * t - tr + bl + 2 * b + br
        let vv = -bl - 2 * l - tl + br + 2 * r + tr
        return (hh * hh + vv * vv).squareRoot()
    }

    /// Neighbours one pixel away: three padded rows, so the inner loop has no branch.
    private static func unitStep(_ luma: [Float], _ w: Int, _ h: Int) -> [Float] {
        var out = [Float](repeating: 0, count: w * h)
        var rows = [[Float]](repeating: [Float](repeating: 0, count: w + 2), count: 3)
        func pad(_ y: Int, into row: inout [Float]) {
            let base = min(max(y, 0), h - 1) * w
            row[0] = luma[base]
            for x in 0..<w { row[x + 1] = luma[base + x] }
            row[w + 1] = luma[base + w - 1]
        }
        out.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                pad(y - 1, into: &rows[0])
                pad(y, into: &rows[1])
                pad(y + 1, into: &rows[2])
                rows[0].withUnsafeBufferPointer { top in rows[1].withUnsafeBufferPointer { mid in rows[2].withUnsafeBufferPointer { bottom in
                    for x in 0..<w {
                        out[y * w + x] = magnitude(tl: top[x], t: top[x + 1], tr: top[x + 2], l: mid[x], r: mid[x + 2],
                                                   bl: bottom[x], b: bottom[x + 1], br: bottom[x + 2])
                    }
                } } }
            }
        }
        return out
    }

    /// Neighbours `step` pixels away, read bilinearly with edges clamped.
    private static func scaledStep(_ luma: [Float], _ w: Int, _ h: Int, _ step: Float) -> [Float] {
        var out = [Float](repeating: 0, count: w * h)
        luma.withUnsafeBufferPointer { l in
            let reader = PlaneReader(r: l, g: l, b: l, width: w, height: h)
            func at(_ x: Float, _ y: Float) -> Float { reader.sample(x: x, y: y).0 }
            for y in 0..<h {
                let cy = Float(y) + 0.5
                for x in 0..<w {
                    let cx = Float(x) + 0.5
                    out[y * w + x] = magnitude(
                        tl: at(cx - step, cy - step), t: at(cx, cy - step), tr: at(cx + step, cy - step),
                        l: at(cx - step, cy), r: at(cx + step, cy),
                        bl: at(cx - step, cy + step), b: at(cx, cy + step), br: at(cx + step, cy + step))
                }
            }
        }
        return out
    }

    /// A grey picture of `tone(|∇L|)` at every pixel, clamped to [0, 1] (sketch, edgeDetection).
    static func renderGrey(_ source: PlanarPicture, into destination: inout PlanarPicture, step: Float,
                           _ tone: (Float) -> Float) {
        let m = magnitudes(of: source, step: step)
        for i in m.indices {
            let v = clampUnit(tone(m[i]))
            destination.r[i] = v
            destination.g[i] = v
            destination.b[i] = v
        }
    }
}
