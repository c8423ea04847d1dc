import SessionKit

/// A 4:2:0 picture in another Y′CbCr matrix or range (BT.601, BT.2020, full range) made
/// BT.709 limited range without leaving Y′CbCr, for segments without filters
/// (docs/rendering.md, "Colour conversion"). Both are linear in R′G′B′, so the change is
/// one 3×3 matrix whose chroma rows hold no luma: the output's chroma is computed at
/// chroma resolution from the source's chroma, never resampled; only luma takes chroma,
/// interpolated at each luma sample where the stream sites it. Going through RGB instead
/// would filter chroma twice (up, then down again) and lose 10 dB at every coloured edge.
/// Integers only: the same bits on every processor.
struct YCbCrToBT709 {
    static let bits = 14

    let siting: SourceColour.Siting
    /// Output luma = (Y·lumaGain·16 + Cb↑·cbToLuma + Cr↑·crToLuma + lumaBias) >> 18, with
    /// Cb↑, Cr↑ from `ChromaUpsampler` (×16, centred).
    private let lumaGain: Int32, cbToLuma: Int32, crToLuma: Int32, lumaBias: Int32
    /// Output chroma = (ΔCb·a + ΔCr·b + bias) >> 18, ΔC = (C − 128)·16 after resampling.
    private let cbFromCb: Int32, cbFromCr: Int32, crFromCb: Int32, crFromCr: Int32

    init(_ colour: SourceColour, fullRange: Bool) {
        let t = Self.matrix(from: colour.matrix.lumaWeights, to: SourceColour.Matrix.bt709.lumaWeights)
        let lumaIn = fullRange ? 1.0 / 255 : 1.0 / 219, chromaIn = fullRange ? 1.0 / 255 : 1.0 / 224
        let lumaOffset = fullRange ? 0.0 : 16
        let one = Double(1 << Self.bits)
        func fixed(_ x: Double) -> Int32 { Int32((x * one).rounded()) }
        siting = colour.siting
        lumaGain = fixed(219 * lumaIn)
        cbToLuma = fixed(219 * t[0][1] * chromaIn)
        crToLuma = fixed(219 * t[0][2] * chromaIn)
        let shift = Self.bits + ChromaUpsampler.extraBits
        lumaBias = Int32(16 << shift) + Int32(1 << (shift - 1)) - Int32((lumaOffset * Double(lumaGain)).rounded()) << 4
        cbFromCb = fixed(224 * t[1][1] * chromaIn)
        cbFromCr = fixed(224 * t[1][2] * chromaIn)
        crFromCb = fixed(224 * t[2][1] * chromaIn)
        crFromCr = fixed(224 * t[2][2] * chromaIn)
    }

    /// The matrix taking normalised (Y′, Cb, Cr) of one matrix to another's: (Y′ in [0, 1],
    /// Cb and Cr in [−½, ½]). Its chroma rows have no luma term (grey stays grey).
    static func matrix(from source: (red: Double, blue: Double), to target: (red: Double, blue: Double)) -> [[Double]] {
        let (kr, kb) = source, kg = 1 - kr - kb
        // R′G′B′ from the source's Y′CbCr, one column per input component.
        let rgb = [[1, 0, 2 * (1 - kr)],
                   [1, -2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg],
                   [1, 2 * (1 - kb), 0]]
        let (tr, tb) = target, tg = 1 - tr - tb
        return (0..<3).map { column -> [Double] in
            let (r, g, b) = (rgb[0][column], rgb[1][column], rgb[2][column])
            let y = tr * r + tg * g + tb * b
            return [y, (b - y) / (2 * (1 - tb)), (r - y) / (2 * (1 - tr))]
        }.transposed
    }

    /// Full-resolution chroma for luma (a 4:4:4 picture at the same size, from a source
    /// with more chroma than 4:2:0): luma then takes the source's own chroma, not chroma
    /// interpolated from the 4:2:0 planes.
    struct FullChroma {
        var cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, stride: Int
    }

    /// Converts a `width × height` 4:2:0 picture, chroma sited as `siting`, into `output`'s
    /// planes (chroma sited left, as the output declares).
    func convert(y: UnsafePointer<UInt8>, yStride: Int, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, chromaStride: Int,
                 width: Int, height: Int, into output: RGBToYUV.Output, chroma: ChromaUpsampler, fullChroma: FullChroma? = nil) {
        let shift = Int32(Self.bits + ChromaUpsampler.extraBits)
        let gain = lumaGain << Int32(ChromaUpsampler.extraBits)
        for row in 0..<height {
            if let full = fullChroma {
                chroma.copyFull(row: row, cb: full.cb, cr: full.cr, chromaStride: full.stride)
            } else {
                chroma.interpolate(row: row, height: height, cb: cb, cr: cr, chromaStride: chromaStride)
            }
            let u = chroma.cb.pointer, v = chroma.cr.pointer
            let source = y + row * yStride, target = output.y + row * output.yStride
            for x in 0..<width {
                target[x] = clampToByte((Int32(source[x]) &* gain &+ u[x] &* cbToLuma &+ v[x] &* crToLuma &+ lumaBias) >> shift)
            }
        }
        convertChroma(cb: cb, cr: cr, chromaStride: chromaStride, width: (width + 1) / 2, height: (height + 1) / 2, into: output)
    }

    /// Four Catmull-Rom taps (in 128ths) at sample offsets −1…+2 that move a plane a
    /// quarter sample: `quarterAfter` reads the value ¼ sample after each sample,
    /// `quarterBefore` ¼ sample before it (taps at −2…+1). Sharper than linear
    /// interpolation, which would blur chroma that is only being re-sited.
    private static let quarterAfter: [Int32] = [-9, 111, 29, -3]
    private static let quarterBefore: [Int32] = [-3, 29, 111, -9]
    private static let unchanged: [Int32] = [0, 128, 0, 0]

    /// The chroma planes, resampled to left siting where the source sits elsewhere: center
    /// chroma lies ¼ sample right of left-sited chroma (so each output reads ¼ sample
    /// before), top-left chroma ¼ sample above (each output reads ¼ sample after).
    private func convertChroma(cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, chromaStride: Int,
                               width: Int, height: Int, into output: RGBToYUV.Output) {
        let shift = Int32(Self.bits + 4)
        let bias = Int32(128 << shift) + Int32(1 << (shift - 1))
        let across = siting == .center ? Self.quarterBefore : Self.unchanged
        let down = siting == .topLeft ? Self.quarterAfter : Self.unchanged
        // Tap offsets: −2…+1 for a read before, −1…+2 otherwise.
        let acrossFirst = siting == .center ? -2 : -1, downFirst = -1
        if siting == .left {
            // Already where the output sites it: the matrix alone, lane by lane.
            for row in 0..<height {
                let inCb = cb + row * chromaStride, inCr = cr + row * chromaStride
                let outCb = output.cb + row * output.chromaStride, outCr = output.cr + row * output.chromaStride
                for x in 0..<width {
                    let u = (Int32(inCb[x]) &- 128) &<< 4, v = (Int32(inCr[x]) &- 128) &<< 4
                    outCb[x] = clampToByte((u &* cbFromCb &+ v &* cbFromCr &+ bias) >> shift)
                    outCr[x] = clampToByte((u &* crFromCb &+ v &* crFromCr &+ bias) >> shift)
                }
            }
            return
        }
        var rowsCb = [Int32](repeating: 0, count: width), rowsCr = rowsCb
        for row in 0..<height {
            // Vertical pass into 128ths, then horizontal into 128ths of that, rounded to 16ths.
            for x in 0..<width { rowsCb[x] = 0; rowsCr[x] = 0 }
            for tap in 0..<4 where down[tap] != 0 {
                let source = min(max(row + downFirst + tap, 0), height - 1)
                let lineCb = cb + source * chromaStride, lineCr = cr + source * chromaStride
                let w = down[tap]
                for x in 0..<width {
                    rowsCb[x] &+= w &* Int32(lineCb[x])
                    rowsCr[x] &+= w &* Int32(lineCr[x])
                }
            }
            let outCb = output.cb + row * output.chromaStride, outCr = output.cr + row * output.chromaStride
            for x in 0..<width {
                var u: Int32 = 0, v: Int32 = 0
                for tap in 0..<4 where across[tap] != 0 {
                    let column = min(max(x + acrossFirst + tap, 0), width - 1)
                    u &+= across[tap] &* rowsCb[column]
                    v &+= across[tap] &* rowsCr[column]
                }
                // 128 × 128 = 2¹⁴ → sixteenths, centred on zero.
                u = ((u &+ 512) >> 10) &- 128 * 16
                v = ((v &+ 512) >> 10) &- 128 * 16
                outCb[x] = clampToByte((u &* cbFromCb &+ v &* cbFromCr &+ bias) >> shift)
                outCr[x] = clampToByte((u &* crFromCb &+ v &* crFromCr &+ bias) >> shift)
            }
        }
    }
}

private extension Array where Element == [Double] {
    var transposed: [[Double]] { (0..<(first?.count ?? 0)).map { c in map { $0[c] } } }
}
