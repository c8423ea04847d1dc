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
        magnitudes(ofLuminance: luminance(of: picture), width: picture.width, height: picture.height, step: step)
    }

    /// `L` of every pixel of `picture`, row-major.
    static func luminance(of picture: PlanarPicture) -> [Float] {
        let count = picture.width * picture.height
        return [Float](unsafeUninitializedCapacity: count) { luma, initialized in
            picture.r.withUnsafeBufferPointer { r in picture.g.withUnsafeBufferPointer { g in picture.b.withUnsafeBufferPointer { b in
                for i in 0..<count { luma[i] = SessionKit.luminance(r[i], g[i], b[i]) }
            } } }
            initialized = count
        }
    }

    /// One magnitude per pixel of a luminance plane `width`×`height`, row-major.
    static func magnitudes(ofLuminance luma: [Float], width w: Int, height h: Int, step: Float) -> [Float] {
        step == 1 ? unitStep(luma, w, h) : scaledStep(luma, w, h, step)
    }

    @inline(__always)
    static func magnitude(tl: Float, t: Float, tr: Float, l: Float, r: Float, bl: Float, b: Float, br: Float) -> Float {
        let hh = -tl - 2 * t - tr + bl + 2 * b + br
        let vv = -bl - 2 * l - tl + br + 2 * r + tr
        return (hh * hh + vv * vv).squareRoot()
    }

    /// Neighbours one pixel away: the picture's luminance padded by one clamped pixel on
    /// every side, so the inner loop has no branch and reads three rows in place.
    private static func unitStep(_ luma: [Float], _ w: Int, _ h: Int) -> [Float] {
        let pw = w + 2
        var padded = [Float](repeating: 0, count: pw * (h + 2))
        padded.withUnsafeMutableBufferPointer { p in
            luma.withUnsafeBufferPointer { l in
                for py in 0..<(h + 2) {
                    let from = l.baseAddress.unsafelyUnwrapped + min(max(py - 1, 0), h - 1) * w
                    let to = p.baseAddress.unsafelyUnwrapped + py * pw
                    to[0] = from[0]
                    (to + 1).update(from: from, count: w)
                    to[w + 1] = from[w - 1]
                }
            }
        }
        var out = [Float](repeating: 0, count: w * h)
        out.withUnsafeMutableBufferPointer { out in padded.withUnsafeBufferPointer { p in
            let base = p.baseAddress.unsafelyUnwrapped
            for y in 0..<h {
                let top = base + y * pw, mid = top + pw, bottom = mid + pw
                let row = out.baseAddress.unsafelyUnwrapped + y * w
                for x in 0..<w {
                    row[x] = magnitude(tl: top[x], t: top[x + 1], tr: top[x + 2], l: mid[x], r: mid[x + 2],
                                       bl: bottom[x], b: bottom[x + 1], br: bottom[x + 2])
                }
            }
        } }
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

}

extension SobelGradient {
    /// `tone(|∇L|)` at every pixel, clamped to [0, 1] (sketch, edgeDetection).
    @inline(__always)
    static func grey(_ luma: [Float], width: Int, height: Int, step: Float, _ tone: (Float) -> Float) -> [Float] {
        var m = magnitudes(ofLuminance: luma, width: width, height: height, step: step)
        m.withUnsafeMutableBufferPointer { m in
            for i in m.indices { m[i] = clampUnit(tone(m[i])) }
        }
        return m
    }
}
