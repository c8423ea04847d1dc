import SessionKit

/// A 4:2:0 picture exactly twice the target's size each way (a 4K phone clip at 1080p)
/// resampled to 4:4:4 at the target size, in integers (docs/rendering.md, "Colour
/// conversion", "Half-size pictures"). Luma is halved by the bicubic filter libswscale
/// applies there (B = 0, C = 0.6, stretched to 8 taps); the chroma planes, already at the
/// target size, are only moved onto the output's pixel centres where the stream sites
/// them elsewhere (a quarter of a sample for left or top-left siting, by the same
/// bicubic). It replaces libswscale for this one shape: its bit-exact 2:1 path is scalar C,
/// 8 ms of a 4K frame's 85; this one runs lane by lane (AVX2) and gives the same bytes on
/// every processor. Used by one thread at a time.
final class HalfSizeResampler {
    let width: Int
    let height: Int
    /// Vertically filtered luma, one source row wide, `pad` repeated samples at each end.
    private let lumaRow: ScratchBuffer<Int32>
    /// Vertically filtered chroma (top-left siting), one row, `pad` repeated samples at each end.
    private let chromaRow: ScratchBuffer<Int32>
    private static let pad = 4

    /// Weights in 1/2^`bits` (1/1024): a luma half-scale's four distinct taps (nearest
    /// first; each used on both sides, so the eight add up to 1024), and a quarter-sample
    /// shift's four (at −1, 0, +1, +2 samples).
    static let bits = 10
    static let halving = bicubic(at: [0.25, 0.75, 1.25, 1.75], total: 1 << (bits - 1))
    static let quarterShift = bicubic(at: [1.25, 0.25, 0.75, 1.75], total: 1 << bits)

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        lumaRow = ScratchBuffer(count: 2 * width + 2 * Self.pad, zero: 0)
        chromaRow = ScratchBuffer(count: width + 2 * Self.pad, zero: 0)
    }

    /// Whether a `source` picture's `crop` is this shape for a `target` picture of
    /// `width × height`: 4:2:0 planar at 8 to 10 bits, native byte order, to 4:4:4 at 8 or
    /// 10 bits, the crop exactly twice the size and on even samples.
    static func fits(source: Layout, target: Layout, crop: FrameProcessor.Crop, width: Int, height: Int) -> Bool {
        source.chroma == .half && target.chroma == .full && (8...10).contains(source.depth)
            && (target.depth == 8 || target.depth == 10)
            && crop.width == 2 * width && crop.height == 2 * height && crop.x % 2 == 0 && crop.y % 2 == 0 && width > 0 && height > 0
    }

    /// A planar picture's shape as this resampler needs it.
    struct Layout {
        enum Chroma { case half, full, other }
        var chroma: Chroma
        /// Bits per sample, stored in bytes (8) or in native 16-bit words (9 to 16).
        var depth: Int
    }

    struct Planes {
        var y: UnsafeRawPointer, cb: UnsafeRawPointer, cr: UnsafeRawPointer
        /// Strides in bytes.
        var yStride: Int, chromaStride: Int
    }

    struct Output {
        var y: UnsafeMutableRawPointer, cb: UnsafeMutableRawPointer, cr: UnsafeMutableRawPointer
        var yStride: Int, chromaStride: Int
    }

    /// Resamples `source` (sited as `siting` says, `sourceDepth` bits) into `output`
    /// (`outputDepth` bits): luma halved, chroma moved onto the pixel centres.
    func resample(_ source: Planes, sourceDepth: Int, siting: SourceColour.Siting, into output: Output, outputDepth: Int) {
        switch (sourceDepth > 8, outputDepth > 8) {
        case (false, false): run(source, UInt8.self, sourceDepth, siting, output, UInt8.self, outputDepth)
        case (false, true): run(source, UInt8.self, sourceDepth, siting, output, UInt16.self, outputDepth)
        case (true, false): run(source, UInt16.self, sourceDepth, siting, output, UInt8.self, outputDepth)
        case (true, true): run(source, UInt16.self, sourceDepth, siting, output, UInt16.self, outputDepth)
        }
    }

    private func run<In: FixedWidthInteger & UnsignedInteger, Out: FixedWidthInteger & UnsignedInteger>(
        _ source: Planes, _: In.Type, _ sourceDepth: Int, _ siting: SourceColour.Siting,
        _ output: Output, _: Out.Type, _ outputDepth: Int) {
        // Two passes of weights in 1/2^bits: the result carries 2·bits extra bits.
        let shift = 2 * Self.bits + sourceDepth - outputDepth
        let rounding = Int32(1) << Int32(shift - 1), top = Int32(1) << Int32(outputDepth) - 1
        let luma = Rows<In>(base: source.y, stride: source.yStride, count: 2 * height)
        for row in 0..<height {
            halveRow(luma, around: 2 * row, into: (output.y + row * output.yStride).assumingMemoryBound(to: Out.self),
                     shift: Int32(shift), rounding: rounding, top: top)
        }
        // Left and center chroma lie midway between rows 2k and 2k+1, on the output's row k;
        // top-left chroma lies on row 2k, a quarter of a sample above it. Left and top-left
        // chroma lie on column 2k, a quarter of a sample left of the output's column k.
        let shiftDown = siting == .topLeft, shiftAcross = siting != .center
        for (plane, out) in [(source.cb, output.cb), (source.cr, output.cr)] {
            let chroma = Rows<In>(base: plane, stride: source.chromaStride, count: height)
            for row in 0..<height {
                chromaRow(chroma, row, down: shiftDown, across: shiftAcross,
                          into: (out + row * output.chromaStride).assumingMemoryBound(to: Out.self),
                          shift: Int32(shift), rounding: rounding, top: top)
            }
        }
    }

    /// A plane's rows, the ones past its edges read as its first or last.
    private struct Rows<Sample> {
        let base: UnsafeRawPointer, stride: Int, count: Int
        subscript(_ row: Int) -> UnsafePointer<Sample> {
            (base + min(max(row, 0), count - 1) * stride).assumingMemoryBound(to: Sample.self)
        }
    }

    /// One output luma row from the eight source rows around the gap below row `first`.
    @inline(__always)
    private func halveRow<In: FixedWidthInteger & UnsignedInteger, Out: FixedWidthInteger & UnsignedInteger>(
        _ rows: Rows<In>, around first: Int, into out: UnsafeMutablePointer<Out>, shift: Int32, rounding: Int32, top: Int32) {
        let w = Self.halving
        let (w0, w1, w2, w3) = (w[0], w[1], w[2], w[3])
        let (r0, r1, r2, r3) = (rows[first - 3], rows[first - 2], rows[first - 1], rows[first])
        let (r4, r5, r6, r7) = (rows[first + 1], rows[first + 2], rows[first + 3], rows[first + 4])
        let t = lumaRow.pointer + Self.pad
        let count = 2 * width
        // Rows 3 and 4 are the nearest (the output's centre lies between them).
        for x in 0..<count {
            let near = Int32(r3[x]) &+ Int32(r4[x]), next = Int32(r2[x]) &+ Int32(r5[x])
            let far = Int32(r1[x]) &+ Int32(r6[x]), farthest = Int32(r0[x]) &+ Int32(r7[x])
            t[x] = w0 &* near &+ w1 &* next &+ w2 &* far &+ w3 &* farthest
        }
        for k in 1...Self.pad {
            t[-k] = t[0]
            t[count - 1 + k] = t[count - 1]
        }
        for i in 0..<width {
            let c = 2 * i
            let near = t[c] &+ t[c + 1], next = t[c - 1] &+ t[c + 2]
            let far = t[c - 2] &+ t[c + 3], farthest = t[c - 3] &+ t[c + 4]
            let sum = w0 &* near &+ w1 &* next &+ w2 &* far &+ w3 &* farthest
            out[i] = Out(truncatingIfNeeded: min(max((sum &+ rounding) &>> shift, 0), top))
        }
    }

    /// Output chroma row `row`: shifted down a quarter of a sample from rows −1 … +2 when
    /// `down`, else row `row` itself; shifted across a quarter of a sample when `across`.
    /// `shift` is for two passes of weights; a row shifted across only is one pass, straight
    /// from the source.
    @inline(__always)
    private func chromaRow<In: FixedWidthInteger & UnsignedInteger, Out: FixedWidthInteger & UnsignedInteger>(
        _ rows: Rows<In>, _ row: Int, down: Bool, across: Bool, into out: UnsafeMutablePointer<Out>,
        shift: Int32, rounding: Int32, top: Int32) {
        let w = Self.quarterShift
        let (w0, w1, w2, w3) = (w[0], w[1], w[2], w[3])
        let one = Int32(1) << Int32(Self.bits)
        guard down else {
            let a = rows[row], last = width - 1
            let oneShift = shift - Int32(Self.bits), oneRounding = Int32(1) << (oneShift - 1)
            @inline(__always) func store(_ x: Int, _ sum: Int32, _ s: Int32, _ r: Int32) {
                out[x] = Out(truncatingIfNeeded: min(max((sum &+ r) &>> s, 0), top))
            }
            guard across else {
                for x in 0..<width { store(x, Int32(a[x]) &* one, oneShift, oneRounding) }
                return
            }
            func clamped(_ x: Int) -> Int32 { Int32(a[min(max(x, 0), last)]) }
            for x in [0, width - 2, width - 1] where x >= 0 {
                store(x, w0 &* clamped(x - 1) &+ w1 &* clamped(x) &+ w2 &* clamped(x + 1) &+ w3 &* clamped(x + 2),
                      oneShift, oneRounding)
            }
            guard width > 3 else { return }
            for x in 1..<(width - 2) {
                let sum = w0 &* Int32(a[x - 1]) &+ w1 &* Int32(a[x]) &+ w2 &* Int32(a[x + 1]) &+ w3 &* Int32(a[x + 2])
                store(x, sum, oneShift, oneRounding)
            }
            return
        }
        let t = chromaRow.pointer + Self.pad
        let (a, b, c, d) = (rows[row - 1], rows[row], rows[row + 1], rows[row + 2])
        for x in 0..<width {
            t[x] = w0 &* Int32(a[x]) &+ w1 &* Int32(b[x]) &+ w2 &* Int32(c[x]) &+ w3 &* Int32(d[x])
        }
        for k in 1...Self.pad {
            t[-k] = t[0]
            t[width - 1 + k] = t[width - 1]
        }
        if across {
            for x in 0..<width {
                let sum = w0 &* t[x - 1] &+ w1 &* t[x] &+ w2 &* t[x + 1] &+ w3 &* t[x + 2]
                out[x] = Out(truncatingIfNeeded: min(max((sum &+ rounding) &>> shift, 0), top))
            }
        } else {
            for x in 0..<width {
                out[x] = Out(truncatingIfNeeded: min(max((t[x] &* one &+ rounding) &>> shift, 0), top))
            }
        }
    }

    /// The bicubic kernel (B = 0, C = 0.6, libswscale's) at `distances`, in integers that
    /// add up to `total` (the rounding goes to the largest weight).
    static func bicubic(at distances: [Double], total: Int32) -> [Int32] {
        let c = 0.6
        func weight(_ d: Double) -> Double {
            d < 1 ? (2 - c) * d * d * d - (3 - c) * d * d + 1
                : d < 2 ? -c * d * d * d + 5 * c * d * d - 8 * c * d + 4 * c : 0
        }
        let raw = distances.map(weight)
        let sum = raw.reduce(0, +)
        var fixed = raw.map { Int32(($0 / sum * Double(total)).rounded()) }
        if let largest = fixed.indices.max(by: { fixed[$0] < fixed[$1] }) {
            fixed[largest] += total - fixed.reduce(0, +)
        }
        return fixed
    }
}
