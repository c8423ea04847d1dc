import CFFmpeg

/// 8-bit 4:2:0 Y′CbCr to packed RGB24 (full range) in the engine's own fixed-point
/// arithmetic (docs/rendering.md, "Colour conversion"): integers only, so the result is
/// the same bits on every processor, and several times faster than libswscale's bit-exact
/// full-chroma path, which was a fifth of a render's CPU.
///
/// Chroma is upsampled as H.264 and HEVC site it by default ("left"): co-sited with the
/// even luma columns (odd columns take the mean of their two neighbours) and midway between
/// two luma rows (¾ of the nearer chroma row, ¼ of the farther).
struct YUVToRGB {
    /// Fixed-point scale of the coefficients.
    static let bits = 14
    /// Chroma after upsampling carries 3 extra bits (vertical weights sum to 4, horizontal to 2).
    static let chromaBits = 3

    let lumaOffset: Int32
    let lumaGain: Int32
    let redFromCr: Int32
    let greenFromCb: Int32
    let greenFromCr: Int32
    let blueFromCb: Int32

    /// nil for a matrix it does not know (libswscale handles those).
    init?(matrix: Int32, fullRange: Bool) {
        let (kr, kb): (Double, Double)
        switch matrix {
        case SWS_CS_ITU709: (kr, kb) = (0.2126, 0.0722)
        case SWS_CS_ITU601, SWS_CS_SMPTE170M: (kr, kb) = (0.299, 0.114)
        case SWS_CS_BT2020: (kr, kb) = (0.2627, 0.0593)
        default: return nil
        }
        let kg = 1 - kr - kb
        let yScale = fullRange ? 1.0 : 255.0 / 219.0
        let cScale = fullRange ? 1.0 : 255.0 / 224.0
        let one = Double(1 << Self.bits)
        func fixed(_ x: Double) -> Int32 { Int32((x * one).rounded()) }
        lumaOffset = fullRange ? 0 : 16
        lumaGain = fixed(yScale)
        redFromCr = fixed(2 * (1 - kr) * cScale)
        greenFromCb = fixed(2 * kb * (1 - kb) / kg * cScale)
        greenFromCr = fixed(2 * kr * (1 - kr) / kg * cScale)
        blueFromCb = fixed(2 * (1 - kb) * cScale)
    }

    /// Converts `width × height` pixels: `y` at full size, `cb` and `cr` at half size
    /// (rounded up) sharing one stride; `rgb` receives packed rows of `rgbStride` bytes.
    func convert(y: UnsafePointer<UInt8>, yStride: Int, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, chromaStride: Int,
                 width: Int, height: Int, into rgb: UnsafeMutablePointer<UInt8>, rgbStride: Int) {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        // One row of vertically interpolated chroma (weights summing to 4), with a repeated
        // last sample so odd columns can read their right neighbour.
        var rowCb = [Int32](repeating: 0, count: chromaWidth + 1)
        var rowCr = rowCb
        let shift = Int32(Self.bits + Self.chromaBits)
        let rounding = Int32(1) << (shift - 1)
        let lumaScale = lumaGain << Int32(Self.chromaBits)
        let centre = Int32(128 << Self.chromaBits)
        let offset = lumaOffset, r = redFromCr, gb = greenFromCb, gr = greenFromCr, b = blueFromCb
        @inline(__always) func pixel(_ luma: UInt8, _ cbValue: Int32, _ crValue: Int32, _ p: UnsafeMutablePointer<UInt8>) {
            // Far inside Int32 (255 × 1.17 × 2¹⁷ + 1024 × 2.1 × 2¹⁴): wrapping operations.
            let l = (Int32(luma) &- offset) &* lumaScale &+ rounding
            p[0] = UInt8(truncatingIfNeeded: min(max((l &+ r &* crValue) >> shift, 0), 255))
            p[1] = UInt8(truncatingIfNeeded: min(max((l &- gb &* cbValue &- gr &* crValue) >> shift, 0), 255))
            p[2] = UInt8(truncatingIfNeeded: min(max((l &+ b &* cbValue) >> shift, 0), 255))
        }
        rowCb.withUnsafeMutableBufferPointer { ub in
            rowCr.withUnsafeMutableBufferPointer { vb in
                guard let u = ub.baseAddress, let v = vb.baseAddress else { return }
                for row in 0..<height {
                    // Chroma row k lies midway between luma rows 2k and 2k+1: row 2k's farther
                    // chroma row is k−1, row 2k+1's is k+1 (clamped at the edges).
                    let near = row / 2
                    let far = min(max(row % 2 == 0 ? near - 1 : near + 1, 0), chromaHeight - 1)
                    let cbNear = cb + near * chromaStride, cbFar = cb + far * chromaStride
                    let crNear = cr + near * chromaStride, crFar = cr + far * chromaStride
                    for i in 0..<chromaWidth {
                        u[i] = 3 &* Int32(cbNear[i]) &+ Int32(cbFar[i])
                        v[i] = 3 &* Int32(crNear[i]) &+ Int32(crFar[i])
                    }
                    u[chromaWidth] = u[chromaWidth - 1]
                    v[chromaWidth] = v[chromaWidth - 1]
                    let luma = y + row * yStride
                    let out = rgb + row * rgbStride
                    // Pairs of columns: the even one on its chroma sample, the odd one between two.
                    var x = 0
                    while x < width {
                        let i = x >> 1
                        pixel(luma[x], u[i] &<< 1 &- centre, v[i] &<< 1 &- centre, out + 3 * x)
                        if x + 1 < width {
                            pixel(luma[x + 1], u[i] &+ u[i + 1] &- centre, v[i] &+ v[i + 1] &- centre, out + 3 * x + 3)
                        }
                        x += 2
                    }
                }
            }
        }
    }
}
