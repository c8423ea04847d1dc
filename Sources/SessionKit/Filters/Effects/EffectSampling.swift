/// What the visual effects share (docs/filters.md, "Visual effects"): texture coordinates
/// of pixel centres, `uv = ((x + ½)/W, (y + ½)/H)`, read through `PlaneReader`. IEEE `Float` arithmetic only (no
/// libm, no fused multiply-add), so every worker computes the same bits.

extension PlanarPicture {
    /// Writes `destination` a row at a time: `body(reader, y, row)` fills row y, given the
    /// source to read (usually the same size) and the row's planes; loops over a row vectorise where a per-pixel
    /// closure does not.
    @inline(__always)
    static func renderRows(from source: PlanarPicture, into destination: inout PlanarPicture,
                           _ body: (PlaneReader, Int, OutputRow) -> Void) {
        let w = destination.width, h = destination.height
        source.r.withUnsafeBufferPointer { sr in source.g.withUnsafeBufferPointer { sg in source.b.withUnsafeBufferPointer { sb in
        destination.r.withUnsafeMutableBufferPointer { dr in destination.g.withUnsafeMutableBufferPointer { dg in
        destination.b.withUnsafeMutableBufferPointer { db in
            guard let r = dr.baseAddress, let g = dg.baseAddress, let b = db.baseAddress else { return }
            let reader = PlaneReader(r: sr, g: sg, b: sb, width: source.width, height: source.height)
            for y in 0..<h {
                body(reader, y, OutputRow(r: r + y * w, g: g + y * w, b: b + y * w, width: w))
            }
        } } } } } }
    }

    /// The picture's aspect ratio as GPUImage's shaders use it: height / width.
    var aspectRatio: Float { SessionKit.aspectRatio(width, height) }
}

/// Texture coordinates of the pixel centres along an axis `count` pixels long, `(i + ½)/count`:
/// the coordinates every effect reads its pixels at.
func pixelCentres(_ count: Int) -> [Float] {
    let n = Float(count)
    return (0..<count).map { (Float($0) + 0.5) / n }
}

/// A picture's aspect ratio as GPUImage's shaders use it: height / width.
@inline(__always)
func aspectRatio(_ width: Int, _ height: Int) -> Float { Float(height) / Float(width) }

/// GLSL's `mod`: `x − y·floor(x/y)`.
@inline(__always)
func glslMod(_ x: Float, _ y: Float) -> Float { x - y * (x / y).rounded(.down) }

/// GLSL's `step`: 0 below the edge, 1 from it on.
@inline(__always)
func glslStep(_ edge: Float, _ x: Float) -> Float { x < edge ? 0 : 1 }

/// The cell grid of GPUImage's Pixellate, PolkaDot and Halftone: cells `width` of the
/// picture's width wide and as many pixels high (`width / aspectRatio` in v), anchored at
/// the top-left corner. The width is `max(width, 0.01)`, as GPUImage3's setters clamp it.
struct CellGrid {
    let du: Float
    let dv: Float

    init(fractionalWidth: Float, aspectRatio: Float) {
        du = max(fractionalWidth, 0.01)
        dv = du / aspectRatio
    }

    /// The centre of the cell that holds (u, v).
    @inline(__always)
    func centre(_ u: Float, _ v: Float) -> (Float, Float) {
        (u - glslMod(u, du) + 0.5 * du, v - glslMod(v, dv) + 0.5 * dv)
    }

    /// The centres' u for each column of a picture `width` wide and v for each row of one
    /// `height` high: a cell's centre depends on u alone across and v alone down, so each
    /// is computed once per column and row, not per pixel (the same bits as `centre`).
    func centres(width: Int, height: Int) -> (columns: [Float], rows: [Float]) {
        (pixelCentres(width).map { $0 - glslMod($0, du) + 0.5 * du }, pixelCentres(height).map { $0 - glslMod($0, dv) + 0.5 * dv })
    }
}

/// What a cell's pixels share (the colour at its centre, its nearest palette colour),
/// computed once for each run of pixels in the same cell: a row crosses a cell in one run,
/// so a 1080p row of 0.03-wide cells takes 34 computations instead of 1,920. The same bits
/// as computing at every pixel (the same coordinates give the same value).
struct CellCache<Value> {
    private var u = Float.nan, v = Float.nan
    private var value: Value

    init(_ initial: Value) { value = initial }

    @inline(__always)
    mutating func value(at cu: Float, _ cv: Float, _ compute: () -> Value) -> Value {
        if cu != u || cv != v {
            value = compute()
            (u, v) = (cu, cv)
        }
        return value
    }
}

/// v stretched about the picture's centre so that distances measured in (u, v′) are
/// in units of the picture's width: `v′ = v·aspect + ½ − ½·aspect`.
@inline(__always)
func squareV(_ v: Float, aspectRatio: Float) -> Float { v * aspectRatio + 0.5 - 0.5 * aspectRatio }

/// One row of a picture being written, three planes.
struct OutputRow {
    let r: UnsafeMutablePointer<Float>
    let g: UnsafeMutablePointer<Float>
    let b: UnsafeMutablePointer<Float>
    let width: Int

    /// Pixel x, clamped to [0, 1].
    @inline(__always)
    func set(_ x: Int, _ colour: (Float, Float, Float)) {
        r[x] = clampUnit(colour.0)
        g[x] = clampUnit(colour.1)
        b[x] = clampUnit(colour.2)
    }

    /// The row above, already written, again: for rows that cross the same cells.
    func repeatRowAbove() {
        r.update(from: r - width, count: width)
        g.update(from: g - width, count: width)
        b.update(from: b - width, count: width)
    }
}

extension PlaneReader {
    /// Row y of each plane.
    @inline(__always)
    func row(_ y: Int) -> (r: UnsafePointer<Float>, g: UnsafePointer<Float>, b: UnsafePointer<Float>) {
        // Non-empty planes: the picture has at least one pixel.
        (r.baseAddress.unsafelyUnwrapped + y * width, g.baseAddress.unsafelyUnwrapped + y * width,
         b.baseAddress.unsafelyUnwrapped + y * width)
    }
}
