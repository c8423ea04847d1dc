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

    /// Per-row working space for pictures `width` pixels wide.
    final class Scratch {
        let width: Int
        /// Vertically interpolated chroma (weights summing to 4), one repeated sample at the end.
        let cb: ScratchBuffer<Int32>, cr: ScratchBuffer<Int32>
        /// Chroma at every luma column, centred on zero, with `chromaBits` extra bits.
        let cbAt: ScratchBuffer<Int32>, crAt: ScratchBuffer<Int32>
        let rgb: PlanarRGBRow

        init(width: Int) {
            self.width = width
            let chromaWidth = (width + 1) / 2
            cb = ScratchBuffer(count: chromaWidth + 1, zero: 0)
            cr = ScratchBuffer(count: chromaWidth + 1, zero: 0)
            cbAt = ScratchBuffer(count: 2 * chromaWidth, zero: 0)
            crAt = ScratchBuffer(count: 2 * chromaWidth, zero: 0)
            rgb = PlanarRGBRow(width: width)
        }
    }

    /// Converts row `row` of a `width × height` picture into `scratch.rgb` (planar): `y` at
    /// full size, `cb` and `cr` at half size (rounded up) sharing one stride. Each loop is
    /// lane by lane over the row, so the compiler vectorises it.
    func convertRow(_ row: Int, y: UnsafePointer<UInt8>, yStride: Int, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
                    chromaStride: Int, height: Int, scratch: Scratch) {
        let width = scratch.width
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let u = scratch.cb.pointer, v = scratch.cr.pointer
        let uAt = scratch.cbAt.pointer, vAt = scratch.crAt.pointer
        // Chroma row k lies midway between luma rows 2k and 2k+1: row 2k's farther chroma
        // row is k−1, row 2k+1's is k+1 (clamped at the edges).
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
        // Even columns sit on their chroma sample, odd ones midway between two.
        let centre = Int32(128 << Self.chromaBits)
        for i in 0..<chromaWidth {
            uAt[2 * i] = u[i] &<< 1 &- centre
            uAt[2 * i + 1] = u[i] &+ u[i + 1] &- centre
            vAt[2 * i] = v[i] &<< 1 &- centre
            vAt[2 * i + 1] = v[i] &+ v[i + 1] &- centre
        }
        let shift = Int32(Self.bits + Self.chromaBits)
        // (Y − offset) · gain, rounded: one multiply and one add per pixel. Far inside Int32
        // (255 × 1.17 × 2¹⁷ + 1024 × 2.1 × 2¹⁴), so the arithmetic wraps without checks.
        let lumaScale = lumaGain << Int32(Self.chromaBits)
        let lumaBias = (Int32(1) << (shift - 1)) &- lumaOffset &* lumaScale
        let rc = redFromCr, gb = greenFromCb, gr = greenFromCr, bc = blueFromCb
        let luma = y + row * yStride
        let red = scratch.rgb.r, green = scratch.rgb.g, blue = scratch.rgb.b
        for x in 0..<width {
            let l = Int32(luma[x]) &* lumaScale &+ lumaBias
            let cbValue = uAt[x], crValue = vAt[x]
            red[x] = clampToByte((l &+ rc &* crValue) >> shift)
            green[x] = clampToByte((l &- gb &* cbValue &- gr &* crValue) >> shift)
            blue[x] = clampToByte((l &+ bc &* cbValue) >> shift)
        }
    }

    /// Converts `width × height` pixels into packed RGB24 rows of `rgbStride` bytes.
    func convert(y: UnsafePointer<UInt8>, yStride: Int, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, chromaStride: Int,
                 width: Int, height: Int, into rgb: UnsafeMutablePointer<UInt8>, rgbStride: Int) {
        let scratch = Scratch(width: width)
        for row in 0..<height {
            convertRow(row, y: y, yStride: yStride, cb: cb, cr: cr, chromaStride: chromaStride, height: height, scratch: scratch)
            scratch.rgb.store(packed: rgb + row * rgbStride)
        }
    }
}
