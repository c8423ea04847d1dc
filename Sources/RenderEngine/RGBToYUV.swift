/// Packed or planar RGB (full range) to 8-bit 4:2:0 BT.709 limited range, the output
/// format (docs/rendering.md, "Colour conversion"), in the engine's own fixed-point
/// arithmetic: the same bits on every processor.
///
/// Chroma is sited as `YUVToRGB` reads it — co-sited with even luma columns, midway
/// between rows 2k and 2k+1 — and filtered by the triangle (linear) kernel at twice its
/// width: [1 2 1]/4 across columns 2i−1 … 2i+1 and [1 3 3 1]/8 over rows 2k−1 … 2k+2
/// (edges repeated). That is the adjoint of `YUVToRGB`'s linear upsampling, and the
/// filter zimg and libswscale's bilinear mode use for the same siting.
///
/// Rows arrive one at a time, top to bottom (`push`): a luma row is written at once, a
/// chroma row as soon as the four rows under its filter have arrived, so a picture never
/// needs to exist as RGB in full. Every loop runs lane by lane over a row (the compiler
/// vectorises them); sums stay far inside Int32 (at most 32 × 0.44 × 2¹⁴ × 255 + 128 ×
/// 2¹⁹), so the arithmetic wraps without checks. Used by one thread at a time.
final class RGBToYUV {
    static let bits = 14
    static let (kr, kb) = (0.2126, 0.0722)

    private static func fixed(_ x: Double) -> Int32 { Int32((x * Double(1 << bits)).rounded()) }
    private static let kg = 1 - kr - kb
    private static let yR = fixed(219.0 / 255 * kr), yG = fixed(219.0 / 255 * kg), yB = fixed(219.0 / 255 * kb)
    private static let cbScale = 224.0 / 255 / (2 * (1 - kb)), crScale = 224.0 / 255 / (2 * (1 - kr))
    private static let cbR = fixed(-kr * cbScale), cbG = fixed(-kg * cbScale), cbB = fixed((1 - kb) * cbScale)
    private static let crR = fixed((1 - kr) * crScale), crG = fixed(-kg * crScale), crB = fixed(-kb * crScale)

    /// Where a picture's planes go.
    struct Output {
        var y: UnsafeMutablePointer<UInt8>, yStride: Int
        var cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>, chromaStride: Int
    }

    let width: Int
    let height: Int
    private var output: Output?
    private var rowsPushed = 0
    private var chromaRowsWritten = 0
    /// Full-resolution chroma of the four most recent rows (slot = row mod 4): Cb then Cr.
    private let recent: ScratchBuffer<Int32>
    /// The vertically filtered row, one sample of edge padding on each side: Cb then Cr.
    private let filtered: ScratchBuffer<Int32>
    /// For `convert(rgb:…)`: one packed row made planar.
    private lazy var planar = PlanarRGBRow(width: width)

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        recent = ScratchBuffer(count: 8 * width, zero: 0)
        filtered = ScratchBuffer(count: 2 * (width + 2), zero: 0)
    }

    /// Starts a picture: the next `height` rows pushed fill `output`.
    func start(_ output: Output) {
        self.output = output
        rowsPushed = 0
        chromaRowsWritten = 0
    }

    /// The next row of the picture, as three planes of `width` values.
    func push(r: UnsafePointer<UInt8>, g: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>) {
        guard let output, rowsPushed < height else { return }
        let row = rowsPushed
        rowsPushed += 1
        let luma = output.y + row * output.yStride
        let lumaBase = Int32(16 << Self.bits) + Int32(1 << (Self.bits - 1))
        // Locals: a static read inside a loop costs a lazy-initialisation check each time.
        let (yR, yG, yB) = (Self.yR, Self.yG, Self.yB)
        let shift = Int32(Self.bits)
        for x in 0..<width {
            let sum = yR &* Int32(r[x]) &+ yG &* Int32(g[x]) &+ yB &* Int32(b[x]) &+ lumaBase
            luma[x] = UInt8(truncatingIfNeeded: sum >> shift)
        }
        let (cbR, cbG, cbB, crR, crG, crB) = (Self.cbR, Self.cbG, Self.cbB, Self.crR, Self.crG, Self.crB)
        let u = recent.pointer + (row & 3) * 2 * width, v = u + width
        for x in 0..<width {
            let red = Int32(r[x]), green = Int32(g[x]), blue = Int32(b[x])
            u[x] = cbR &* red &+ cbG &* green &+ cbB &* blue
            v[x] = crR &* red &+ crG &* green &+ crB &* blue
        }
        // Chroma row k filters rows 2k−1 … 2k+2 (clamped): write each once its last row is in.
        let chromaHeight = (height + 1) / 2
        while chromaRowsWritten < chromaHeight, min(2 * chromaRowsWritten + 2, height - 1) <= row {
            writeChromaRow(chromaRowsWritten, output)
            chromaRowsWritten += 1
        }
    }

    private func writeChromaRow(_ k: Int, _ output: Output) {
        func rows(_ row: Int) -> (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) {
            let u = recent.pointer + (min(max(row, 0), height - 1) & 3) * 2 * width
            return (u, u + width)
        }
        let (u0, v0) = rows(2 * k - 1), (u1, v1) = rows(2 * k), (u2, v2) = rows(2 * k + 1), (u3, v3) = rows(2 * k + 2)
        let su = filtered.pointer + 1, sv = su + width + 2
        for x in 0..<width {
            su[x] = u0[x] &+ 3 &* (u1[x] &+ u2[x]) &+ u3[x]
            sv[x] = v0[x] &+ 3 &* (v1[x] &+ v2[x]) &+ v3[x]
        }
        su[-1] = su[0]; sv[-1] = sv[0]
        su[width] = su[width - 1]; sv[width] = sv[width - 1]
        // Filter weights sum to 32 (4 across × 8 down).
        let chromaShift = Int32(Self.bits + 5)
        let chromaBase = Int32(128 << chromaShift) + Int32(1 << (chromaShift - 1))
        let outCb = output.cb + k * output.chromaStride, outCr = output.cr + k * output.chromaStride
        for i in 0..<(width + 1) / 2 {
            let c = 2 * i
            let sb = 2 &* su[c] &+ su[c - 1] &+ su[c + 1]
            let sr = 2 &* sv[c] &+ sv[c - 1] &+ sv[c + 1]
            outCb[i] = clampToByte((sb &+ chromaBase) >> chromaShift)
            outCr[i] = clampToByte((sr &+ chromaBase) >> chromaShift)
        }
    }

    /// Converts `width × height` pixels of packed RGB24 into the three planes.
    static func convert(rgb: UnsafePointer<UInt8>, rgbStride: Int, width: Int, height: Int,
                        y: UnsafeMutablePointer<UInt8>, yStride: Int,
                        cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>, chromaStride: Int) {
        let converter = RGBToYUV(width: width, height: height)
        converter.start(Output(y: y, yStride: yStride, cb: cb, cr: cr, chromaStride: chromaStride))
        let row = converter.planar
        for line in 0..<height {
            row.load(packed: rgb + line * rgbStride)
            converter.push(r: row.r, g: row.g, b: row.b)
        }
    }
}
