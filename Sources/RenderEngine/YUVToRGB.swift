import SessionKit

/// 8-bit 4:2:0 Y′CbCr to packed RGB24 (full range) in the engine's own fixed-point
/// arithmetic (docs/rendering.md, "Colour conversion"): integers only, so the result is
/// the same bits on every processor, and several times faster than libswscale's bit-exact
/// full-chroma path, which was a fifth of a render's CPU. Chroma is interpolated where the
/// stream sites it (`ChromaUpsampler`), or read as it is from 4:4:4 planes (`fullChroma`);
/// any matrix, limited or full range.
struct YUVToRGB {
    /// Fixed-point scale of the coefficients.
    static let bits = 14

    let siting: SourceColour.Siting
    /// The chroma planes are at luma resolution (4:4:4), else half of it (4:2:0).
    let fullChroma: Bool
    let lumaOffset: Int32
    let lumaGain: Int32
    let redFromCr: Int32
    let greenFromCb: Int32
    let greenFromCr: Int32
    let blueFromCb: Int32

    init(_ colour: SourceColour, fullRange: Bool, fullChroma: Bool = false) {
        self.fullChroma = fullChroma
        let (kr, kb) = colour.matrix.lumaWeights
        let kg = 1 - kr - kb
        let yScale = fullRange ? 1.0 : 255.0 / 219.0
        let cScale = fullRange ? 1.0 : 255.0 / 224.0
        let one = Double(1 << Self.bits)
        func fixed(_ x: Double) -> Int32 { Int32((x * one).rounded()) }
        siting = colour.siting
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
        let chroma: ChromaUpsampler
        let rgb: PlanarRGBRow

        init(width: Int, siting: SourceColour.Siting, fullChroma: Bool = false) {
            self.width = width
            chroma = ChromaUpsampler(width: width, siting: siting, full: fullChroma)
            rgb = PlanarRGBRow(width: width)
        }
    }

    /// Converts row `row` of a `width × height` picture into `scratch.rgb` (planar): `y` at
    /// full size, `cb` and `cr` at half size (rounded up), or full with `fullChroma`, sharing
    /// one stride. Each loop is
    /// lane by lane over the row, so the compiler vectorises it.
    func convertRow(_ row: Int, y: UnsafePointer<UInt8>, yStride: Int, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
                    chromaStride: Int, height: Int, scratch: Scratch) {
        let width = scratch.width
        scratch.chroma.interpolate(row: row, height: height, cb: cb, cr: cr, chromaStride: chromaStride)
        let uAt = scratch.chroma.cb.pointer, vAt = scratch.chroma.cr.pointer
        let shift = Int32(Self.bits + ChromaUpsampler.extraBits)
        // (Y − offset) · gain, rounded: one multiply and one add per pixel. Far inside Int32
        // (255 × 1.17 × 2¹⁸ + 2048 × 2.1 × 2¹⁴), so the arithmetic wraps without checks.
        let lumaScale = lumaGain << Int32(ChromaUpsampler.extraBits)
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
        let scratch = Scratch(width: width, siting: siting, fullChroma: fullChroma)
        for row in 0..<height {
            convertRow(row, y: y, yStride: yStride, cb: cb, cr: cr, chromaStride: chromaStride, height: height, scratch: scratch)
            scratch.rgb.store(packed: rgb + row * rgbStride)
        }
    }
}
