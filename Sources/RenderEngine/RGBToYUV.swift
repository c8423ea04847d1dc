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

    /// Converts `width × height` pixels of `rgb` into the three planes.
    static func convert(rgb: UnsafePointer<UInt8>, rgbStride: Int, width: Int, height: Int,
                        y: UnsafeMutablePointer<UInt8>, yStride: Int,
                        cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>, chromaStride: Int) {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let lumaBase = Int32(16 << bits) + Int32(1 << (bits - 1))
        for row in 0..<height {
            let source = rgb + row * rgbStride, luma = y + row * yStride
            for x in 0..<width {
                let p = source + 3 * x
                luma[x] = UInt8(truncatingIfNeeded: (yR * Int32(p[0]) + yG * Int32(p[1]) + yB * Int32(p[2]) + lumaBase) >> Int32(bits))
            }
        }
        // Filter weights sum to 32 (4 across × 8 down).
        let chromaShift = Int32(bits + 5)
        let chromaBase = Int32(128 << chromaShift) + Int32(1 << (chromaShift - 1))
        // Full-resolution chroma of the four most recent rows (slot = row mod 4), and the
        // vertically filtered row.
        var rows = [Int32](repeating: 0, count: 8 * width)
        var tags = [Int](repeating: -1, count: 4)
        var column = [Int32](repeating: 0, count: 2 * (width + 2))
        rows.withUnsafeMutableBufferPointer { rb in
            column.withUnsafeMutableBufferPointer { cb2 in
                guard let rowBase = rb.baseAddress, let columnBase = cb2.baseAddress else { return }
                func chromaRow(_ row: Int) -> (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) {
                    let slot = row & 3
                    let u = rowBase + slot * 2 * width, v = u + width
                    if tags[slot] != row {
                        tags[slot] = row
                        let source = rgb + row * rgbStride
                        for x in 0..<width {
                            let p = source + 3 * x
                            let r = Int32(p[0]), g = Int32(p[1]), b = Int32(p[2])
                            u[x] = cbR * r + cbG * g + cbB * b
                            v[x] = crR * r + crG * g + crB * b
                        }
                    }
                    return (u, v)
                }
                // Vertically filtered chroma, one sample of edge padding on each side.
                let su = columnBase + 1, sv = su + width + 2
                for k in 0..<chromaHeight {
                    let taps = [(2 * k - 1, Int32(1)), (2 * k, 3), (2 * k + 1, 3), (2 * k + 2, 1)]
                    for x in 0..<width { su[x] = 0; sv[x] = 0 }
                    for (row, weight) in taps {
                        let (u, v) = chromaRow(min(max(row, 0), height - 1))
                        for x in 0..<width {
                            su[x] += weight * u[x]
                            sv[x] += weight * v[x]
                        }
                    }
                    for pad in 1...1 {
                        su[-pad] = su[0]; sv[-pad] = sv[0]
                        su[width - 1 + pad] = su[width - 1]; sv[width - 1 + pad] = sv[width - 1]
                    }
                    let outCb = cb + k * chromaStride, outCr = cr + k * chromaStride
                    for i in 0..<chromaWidth {
                        let c = 2 * i
                        let sb = 2 * su[c] + su[c - 1] + su[c + 1]
                        let sr = 2 * sv[c] + sv[c - 1] + sv[c + 1]
                        outCb[i] = UInt8(truncatingIfNeeded: min(max((sb + chromaBase) >> chromaShift, 0), 255))
                        outCr[i] = UInt8(truncatingIfNeeded: min(max((sr + chromaBase) >> chromaShift, 0), 255))
                    }
                }
            }
        }
    }
}
