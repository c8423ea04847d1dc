/// Packed RGB24 (full range) to 8-bit 4:2:0 BT.709 limited range, the output format
/// (docs/rendering.md, "Colour conversion"), in the engine's own fixed-point arithmetic:
/// the same bits on every processor.
///
/// Chroma is sited as `YUVToRGB` reads it — co-sited with even luma columns, midway
/// between rows 2k and 2k+1 — and filtered by the triangle (linear) kernel at twice its
/// width: [1 2 1]/4 across columns 2i−1 … 2i+1 and [1 3 3 1]/8 over rows 2k−1 … 2k+2
/// (edges repeated). That is the adjoint of `YUVToRGB`'s linear upsampling, and the
/// filter zimg and libswscale's bilinear mode use for the same siting.
struct RGBToYUV {
    static let bits = 14
    static let (kr, kb) = (0.2126, 0.0722)

    private static func fixed(_ x: Double) -> Int32 { Int32((x * Double(1 << bits)).rounded()) }
    private static let kg = 1 - kr - kb
    private static let yR = fixed(219.0 / 255 * kr), yG = fixed(219.0 / 255 * kg), yB = fixed(219.0 / 255 * kb)
    private static let cbScale = 224.0 / 255 / (2 * (1 - kb)), crScale = 224.0 / 255 / (2 * (1 - kr))
    private static let cbR = fixed(-kr * cbScale), cbG = fixed(-kg * cbScale), cbB = fixed((1 - kb) * cbScale)
    private static let crR = fixed((1 - kr) * crScale), crG = fixed(-kg * crScale), crB = fixed(-kb * crScale)

    /// Converts `width × height` pixels of `rgb` into the three planes. Sums stay far inside
    /// Int32 (at most 32 × 0.44 × 2¹⁴ × 255 + 128 × 2¹⁹), so the loops use wrapping
    /// arithmetic, which the compiler can vectorise.
    static func convert(rgb: UnsafePointer<UInt8>, rgbStride: Int, width: Int, height: Int,
                        y: UnsafeMutablePointer<UInt8>, yStride: Int,
                        cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>, chromaStride: Int) {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let lumaBase = Int32(16 << bits) + Int32(1 << (bits - 1))
        // Locals: a static read inside the loops costs a lazy-initialisation check each time.
        let (yR, yG, yB) = (Self.yR, Self.yG, Self.yB)
        let (cbR, cbG, cbB, crR, crG, crB) = (Self.cbR, Self.cbG, Self.cbB, Self.crR, Self.crG, Self.crB)
        for row in 0..<height {
            let source = rgb + row * rgbStride, luma = y + row * yStride
            for x in 0..<width {
                let p = source + 3 * x
                luma[x] = UInt8(truncatingIfNeeded: (yR &* Int32(p[0]) &+ yG &* Int32(p[1]) &+ yB &* Int32(p[2]) &+ lumaBase) >> Int32(bits))
            }
        }
        // Filter weights sum to 32 (4 across × 8 down).
        let chromaShift = Int32(bits + 5)
        let chromaBase = Int32(128 << chromaShift) + Int32(1 << (chromaShift - 1))
        // Full-resolution chroma of the four most recent rows (slot = row mod 4), and the
        // vertically filtered row.
        var rows = [Int32](repeating: 0, count: 8 * width)
        var column = [Int32](repeating: 0, count: 2 * (width + 2))
        rows.withUnsafeMutableBufferPointer { rb in
            column.withUnsafeMutableBufferPointer { cb2 in
                guard let rowBase = rb.baseAddress, let columnBase = cb2.baseAddress else { return }
                // Rows are asked for in increasing order, each within 3 of the last computed.
                var computed = -1
                func chromaRow(_ row: Int) -> (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) {
                    while computed < row {
                        computed += 1
                        let u = rowBase + (computed & 3) * 2 * width, v = u + width
                        let source = rgb + computed * rgbStride
                        for x in 0..<width {
                            let p = source + 3 * x
                            let r = Int32(p[0]), g = Int32(p[1]), b = Int32(p[2])
                            u[x] = cbR &* r &+ cbG &* g &+ cbB &* b
                            v[x] = crR &* r &+ crG &* g &+ crB &* b
                        }
                    }
                    let u = rowBase + (row & 3) * 2 * width
                    return (u, u + width)
                }
                // Vertically filtered chroma, one sample of edge padding on each side.
                let su = columnBase + 1, sv = su + width + 2
                for k in 0..<chromaHeight {
                    let (u0, v0) = chromaRow(max(2 * k - 1, 0)), (u1, v1) = chromaRow(2 * k)
                    let (u2, v2) = chromaRow(min(2 * k + 1, height - 1)), (u3, v3) = chromaRow(min(2 * k + 2, height - 1))
                    for x in 0..<width {
                        su[x] = u0[x] &+ 3 &* (u1[x] &+ u2[x]) &+ u3[x]
                        sv[x] = v0[x] &+ 3 &* (v1[x] &+ v2[x]) &+ v3[x]
                    }
                    for pad in 1...1 {
                        su[-pad] = su[0]; sv[-pad] = sv[0]
                        su[width - 1 + pad] = su[width - 1]; sv[width - 1 + pad] = sv[width - 1]
                    }
                    let outCb = cb + k * chromaStride, outCr = cr + k * chromaStride
                    for i in 0..<chromaWidth {
                        let c = 2 * i
                        let sb = 2 &* su[c] &+ su[c - 1] &+ su[c + 1]
                        let sr = 2 &* sv[c] &+ sv[c - 1] &+ sv[c + 1]
                        outCb[i] = UInt8(truncatingIfNeeded: min(max((sb &+ chromaBase) >> chromaShift, 0), 255))
                        outCr[i] = UInt8(truncatingIfNeeded: min(max((sr &+ chromaBase) >> chromaShift, 0), 255))
                    }
                }
            }
        }
    }
}
