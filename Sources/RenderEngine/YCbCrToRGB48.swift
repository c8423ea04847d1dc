import SessionKit

/// High-bit-depth 4:2:0 Y′CbCr (10 to 16 bits in 16-bit samples) to packed RGB48, for HDR
/// sources before their transfer is undone (docs/rendering.md, "HDR sources"). Chroma is
/// interpolated linearly where the stream sites it, as the reference conversion (zimg's
/// bilinear resampler) does: after the transfer a different interpolation shows at every
/// coloured edge. Chroma planes at luma resolution (`fullChroma`: a picture scaled to half
/// its source or less) are read as they are. IEEE `Float` throughout, no fused operations:
/// the same bits everywhere.
struct YCbCrToRGB48 {
    let siting: SourceColour.Siting
    /// The chroma planes are at luma resolution (4:4:4).
    let fullChroma: Bool
    private let lumaOffset: Float, lumaScale: Float, chromaScale: Float
    private let redFromCr: Float, greenFromCb: Float, greenFromCr: Float, blueFromCb: Float

    init(_ colour: SourceColour, fullRange: Bool, bitDepth: Int, fullChroma: Bool = false) {
        self.fullChroma = fullChroma
        let (kr, kb) = colour.matrix.lumaWeights
        let kg = 1 - kr - kb
        let step = Float(1 << (bitDepth - 8))
        siting = colour.siting
        lumaOffset = fullRange ? 0 : 16 * step
        lumaScale = 1 / ((fullRange ? 255 : 219) * step)
        chromaScale = 1 / ((fullRange ? 255 : 224) * step)
        redFromCr = Float(2 * (1 - kr))
        greenFromCb = Float(2 * kb * (1 - kb) / kg)
        greenFromCr = Float(2 * kr * (1 - kr) / kg)
        blueFromCb = Float(2 * (1 - kb))
        centre = 128 * step
    }

    private let centre: Float

    /// The rows one conversion works in, for pictures up to `width` wide, kept between
    /// frames by its owner. Used by one thread at a time.
    final class Scratch {
        let width: Int
        /// A chroma row vertically interpolated, one sample of margin each side.
        let u: ScratchBuffer<Float>, v: ScratchBuffer<Float>
        /// Chroma at every column of a row (a whole number of pairs).
        let cbRow: ScratchBuffer<Float>, crRow: ScratchBuffer<Float>

        init(width: Int) {
            self.width = width
            let chromaWidth = (width + 1) / 2
            u = ScratchBuffer(count: chromaWidth + 2, zero: 0)
            v = ScratchBuffer(count: chromaWidth + 2, zero: 0)
            cbRow = ScratchBuffer(count: 2 * chromaWidth, zero: 0)
            crRow = ScratchBuffer(count: 2 * chromaWidth, zero: 0)
        }
    }

    /// Converts `width × height` pixels (chroma planes half size, rounded up, or full size
    /// with `fullChroma`, sharing a stride; strides in samples) into RGB48 rows of
    /// `rgbStride` samples. `scratch` is at least `width` wide.
    func convert(y: UnsafePointer<UInt16>, yStride: Int, cb: UnsafePointer<UInt16>, cr: UnsafePointer<UInt16>,
                 chromaStride: Int, width: Int, height: Int, into rgb: UnsafeMutablePointer<UInt16>, rgbStride: Int,
                 scratch: Scratch) {
        precondition(scratch.width >= width, "YCbCrToRGB48: scratch rows narrower than the picture")
        let chromaHeight = (height + 1) / 2
        // Chroma at every column of a row: the horizontal interpolation is done once per
        // chroma sample, so the pixel loop below is straight arithmetic.
        let cbAt = scratch.cbRow.pointer, crAt = scratch.crRow.pointer
        for row in 0..<height {
            if fullChroma {
                let cbLine = cb + row * chromaStride, crLine = cr + row * chromaStride
                for x in 0..<width {
                    cbAt[x] = (Float(cbLine[x]) - centre) * chromaScale
                    crAt[x] = (Float(crLine[x]) - centre) * chromaScale
                }
            } else {
                interpolateChroma(row: row, cb: cb, cr: cr, chromaStride: chromaStride, chromaWidth: (width + 1) / 2,
                                  chromaHeight: chromaHeight, scratch: scratch)
            }
            let luma = y + row * yStride, out = rgb + row * rgbStride
            for x in 0..<width {
                let l = (Float(luma[x]) - lumaOffset) * lumaScale
                out[3 * x] = Self.code(l + redFromCr * crAt[x])
                out[3 * x + 1] = Self.code(l - greenFromCb * cbAt[x] - greenFromCr * crAt[x])
                out[3 * x + 2] = Self.code(l + blueFromCb * cbAt[x])
            }
        }
    }

    /// Chroma at every column of luma row `row` into `scratch`'s rows, interpolated where
    /// the stream sites it.
    private func interpolateChroma(row: Int, cb: UnsafePointer<UInt16>, cr: UnsafePointer<UInt16>, chromaStride: Int,
                                   chromaWidth: Int, chromaHeight: Int, scratch: Scratch) {
        // Vertical: left and center chroma sit midway between rows 2k and 2k+1 (¾ of the
        // nearer row, ¼ of the farther); top-left chroma sits on row 2k.
        let near = row / 2
        let (nearWeight, far): (Float, Int) = switch siting {
        case .left, .center: (0.75, row % 2 == 0 ? near - 1 : near + 1)
        case .topLeft: (row % 2 == 0 ? 1 : 0.5, near + 1)
        }
        let farRow = min(max(far, 0), chromaHeight - 1)
        let u = scratch.u.pointer, v = scratch.v.pointer
        let cbRow = scratch.cbRow.pointer, crRow = scratch.crRow.pointer
        let cbNear = cb + near * chromaStride, cbFar = cb + farRow * chromaStride
        let crNear = cr + near * chromaStride, crFar = cr + farRow * chromaStride
        for i in 0..<chromaWidth {
            let a = Float(cbNear[i]) * nearWeight
            let b = Float(cbFar[i]) * (1 - nearWeight)
            let c = Float(crNear[i]) * nearWeight
            let d = Float(crFar[i]) * (1 - nearWeight)
            u[i + 1] = (a + b - centre) * chromaScale
            v[i + 1] = (c + d - centre) * chromaScale
        }
        u[0] = u[1]; v[0] = v[1]
        u[chromaWidth + 1] = u[chromaWidth]; v[chromaWidth + 1] = v[chromaWidth]
        // Horizontal: left and top-left chroma sit on even columns (odd ones take the
        // mean of their neighbours); center chroma midway between columns 2i and 2i+1.
        if siting == .center {
            for i in 1...chromaWidth {
                cbRow[2 * i - 2] = u[i] * 0.75 + u[i - 1] * 0.25
                crRow[2 * i - 2] = v[i] * 0.75 + v[i - 1] * 0.25
                cbRow[2 * i - 1] = u[i] * 0.75 + u[i + 1] * 0.25
                crRow[2 * i - 1] = v[i] * 0.75 + v[i + 1] * 0.25
            }
        } else {
            for i in 1...chromaWidth {
                cbRow[2 * i - 2] = u[i]
                crRow[2 * i - 2] = v[i]
                cbRow[2 * i - 1] = (u[i] + u[i + 1]) * 0.5
                crRow[2 * i - 1] = (v[i] + v[i + 1]) * 0.5
            }
        }
    }

    /// A [0, 1] value as a 16-bit code, rounded, clamped.
    private static func code(_ x: Float) -> UInt16 {
        UInt16(min(max(x * 65535 + 0.5, 0), 65535).rounded(.down))
    }
}
