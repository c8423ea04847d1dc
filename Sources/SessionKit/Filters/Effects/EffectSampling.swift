/// What the visual effects share (docs/filters.md, "Visual effects"): texture coordinates
/// of pixel centres, `uv = ((x + ½)/W, (y + ½)/H)`, read through `PlaneReader`. IEEE `Float` arithmetic only (no
/// libm, no fused multiply-add), so every worker computes the same bits.

extension PlanarPicture {
    /// Writes every pixel of `destination` from `body(reader, x, y, u, v)`, clamped to [0, 1].
    @inline(__always)
    static func render(from source: PlanarPicture, into destination: inout PlanarPicture,
                       _ body: (PlaneReader, Int, Int, Float, Float) -> (Float, Float, Float)) {
        let w = source.width, h = source.height
        let fw = Float(w), fh = Float(h)
        source.r.withUnsafeBufferPointer { sr in source.g.withUnsafeBufferPointer { sg in source.b.withUnsafeBufferPointer { sb in
        destination.r.withUnsafeMutableBufferPointer { dr in destination.g.withUnsafeMutableBufferPointer { dg in
        destination.b.withUnsafeMutableBufferPointer { db in
            let reader = PlaneReader(r: sr, g: sg, b: sb, width: w, height: h)
            for y in 0..<h {
                let v = (Float(y) + 0.5) / fh
                for x in 0..<w {
                    let (r, g, b) = body(reader, x, y, (Float(x) + 0.5) / fw, v)
                    let i = y * w + x
                    dr[i] = clampUnit(r)
                    dg[i] = clampUnit(g)
                    db[i] = clampUnit(b)
                }
            }
        } } } } } }
    }

    /// Each pixel of `destination` read from the texture coordinate `map(u, v)` gives.
    @inline(__always)
    static func remap(from source: PlanarPicture, into destination: inout PlanarPicture,
                      _ map: (Float, Float) -> (Float, Float)) {
        render(from: source, into: &destination) { reader, _, _, u, v in
            let (su, sv) = map(u, v)
            return reader.sample(u: su, v: sv)
        }
    }

    /// The picture's aspect ratio as GPUImage's shaders use it: height / width.
    var aspectRatio: Float { Float(height) / Float(width) }
}

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
