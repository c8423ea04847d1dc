import SessionKit

/// 4:2:0 chroma interpolated at every luma sample of a row, where the stream sites it
/// (docs/rendering.md, "Colour conversion"), in integers so every processor gives the same
/// bits. Linear interpolation between the two nearest samples in each direction:
/// * left (H.264/HEVC default): co-sited with even columns, midway between rows;
/// * center (JPEG, MPEG-1): midway between columns and between rows;
/// * top-left: co-sited with even columns and even rows.
///
/// Each direction's weights are quarters, so a value carries `extraBits` (4) extra bits and
/// is centred on zero: `(chroma − 128) · 16`. Chroma planes at luma resolution (`full`: a
/// picture scaled down to half its source's size or less keeps its source's chroma) are
/// read as they are, in the same form.
final class ChromaUpsampler {
    static let extraBits = 4

    let width: Int
    let siting: SourceColour.Siting
    /// The chroma planes have a sample at every luma sample (4:4:4).
    let full: Bool
    /// Vertically interpolated chroma (×4), one repeated sample at each end.
    private let cbRow: ScratchBuffer<Int32>, crRow: ScratchBuffer<Int32>
    /// Chroma at every luma column (a whole number of pairs), centred on zero, ×16.
    let cb: ScratchBuffer<Int32>, cr: ScratchBuffer<Int32>

    init(width: Int, siting: SourceColour.Siting, full: Bool = false) {
        self.width = width
        self.siting = siting
        self.full = full
        let chromaWidth = (width + 1) / 2
        cbRow = ScratchBuffer(count: chromaWidth + 2, zero: 0)
        crRow = ScratchBuffer(count: chromaWidth + 2, zero: 0)
        cb = ScratchBuffer(count: 2 * chromaWidth, zero: 0)
        cr = ScratchBuffer(count: 2 * chromaWidth, zero: 0)
    }

    /// Fills `cb` and `cr` for luma row `row` of a picture `height` rows tall whose chroma
    /// planes (half size, rounded up) share `chromaStride`. Loops run lane by lane so the
    /// compiler vectorises them.
    func interpolate(row: Int, height: Int, cb cbPlane: UnsafePointer<UInt8>, cr crPlane: UnsafePointer<UInt8>,
                     chromaStride: Int) {
        if full { return copyFull(row: row, cb: cbPlane, cr: crPlane, chromaStride: chromaStride) }
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let near = row / 2
        let (nearWeight, far): (Int32, Int)
        switch siting {
        case .left, .center:
            // Chroma row k lies midway between luma rows 2k and 2k+1: ¾ of the nearer, ¼ of
            // the farther (row 2k's farther row is k−1, row 2k+1's is k+1).
            nearWeight = 3
            far = row % 2 == 0 ? near - 1 : near + 1
        case .topLeft:
            // Chroma row k is on luma row 2k; row 2k+1 is midway between k and k+1.
            nearWeight = row % 2 == 0 ? 4 : 2
            far = near + 1
        }
        let farRow = min(max(far, 0), chromaHeight - 1)
        let farWeight = 4 - nearWeight
        let u = cbRow.pointer + 1, v = crRow.pointer + 1
        let cbNear = cbPlane + near * chromaStride, cbFar = cbPlane + farRow * chromaStride
        let crNear = crPlane + near * chromaStride, crFar = crPlane + farRow * chromaStride
        let centre = Int32(128 << 2)
        for i in 0..<chromaWidth {
            u[i] = nearWeight &* Int32(cbNear[i]) &+ farWeight &* Int32(cbFar[i]) &- centre
            v[i] = nearWeight &* Int32(crNear[i]) &+ farWeight &* Int32(crFar[i]) &- centre
        }
        u[-1] = u[0]; v[-1] = v[0]
        u[chromaWidth] = u[chromaWidth - 1]; v[chromaWidth] = v[chromaWidth - 1]
        let uAt = cb.pointer, vAt = cr.pointer
        switch siting {
        case .left, .topLeft:
            // Even columns sit on their sample, odd ones midway between two.
            for i in 0..<chromaWidth {
                uAt[2 * i] = u[i] &<< 2
                uAt[2 * i + 1] = (u[i] &+ u[i + 1]) &<< 1
                vAt[2 * i] = v[i] &<< 2
                vAt[2 * i + 1] = (v[i] &+ v[i + 1]) &<< 1
            }
        case .center:
            // Sample i lies midway between columns 2i and 2i+1.
            for i in 0..<chromaWidth {
                uAt[2 * i] = 3 &* u[i] &+ u[i - 1]
                uAt[2 * i + 1] = 3 &* u[i] &+ u[i + 1]
                vAt[2 * i] = 3 &* v[i] &+ v[i - 1]
                vAt[2 * i + 1] = 3 &* v[i] &+ v[i + 1]
            }
        }
    }

    /// Fills `cb` and `cr` from row `row` of full-resolution (4:4:4) chroma planes, centred
    /// and scaled as an interpolated row.
    func copyFull(row: Int, cb cbPlane: UnsafePointer<UInt8>, cr crPlane: UnsafePointer<UInt8>, chromaStride: Int) {
        let cbRow = cbPlane + row * chromaStride, crRow = crPlane + row * chromaStride
        let uAt = cb.pointer, vAt = cr.pointer
        let shift = Int32(Self.extraBits)
        for x in 0..<width {
            uAt[x] = (Int32(cbRow[x]) &- 128) &<< shift
            vAt[x] = (Int32(crRow[x]) &- 128) &<< shift
        }
    }
}
