/// An effect that only moves pixels (swirl, bulge, pinch, sphereRefraction,
/// stretchDistortion): each pixel reads the source at a point that depends on where the
/// pixel is, never on the picture's colours (docs/filters.md, "Visual effects").
public protocol Distortion: PictureOperation {
    /// For a picture `width`×`height`: the texture coordinate the pixel centred at (u, v)
    /// reads, or nil where the pixel is black. Called once per pixel when a map is made.
    func sourcePoints(width: Int, height: Int) -> (Float, Float) -> (Float, Float)?
}

extension Distortion {
    public var needsOrientedPicture: Bool { true }

    public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
        SampleMap(self, width: source.width, height: source.height).apply(source, into: &destination)
    }
}

/// Where each pixel of a distorted picture reads its source: the top-left pixel of its
/// bilinear read and the read's weights. A distortion's coordinates are the same for every
/// frame, so the engine makes the map once per picture size and each frame only gathers
/// and blends (a 1080p swirl: ≈ 20 ns a pixel of coordinate arithmetic, once). The blend is
/// `PlaneReader`'s own, so the bits are those of reading at the coordinates directly.
public struct SampleMap: Sendable {
    public let width: Int
    public let height: Int
    /// Reads averaged for each sample, in order (chroma maps: 1 or 4, `init(chromaOf:)`);
    /// nil when every sample has one.
    private let taps: [UInt8]?
    /// The top-left pixel of each read, `y << 16 | x` (render sizes are at most 16384
    /// pixels a side), or `black` where the pixel is black.
    private let corner: [UInt32]
    private static let black = UInt32.max
    /// Bit 0: the right pixel of the read is the next one (else the same, at the right
    /// edge); bit 1: the lower pixel is on the next row (else the same row).
    private let steps: [UInt8]
    private let tx: [Float]
    private let ty: [Float]

    public init(_ distortion: some Distortion, width: Int, height: Int) {
        let point = distortion.sourcePoints(width: width, height: height)
        let us = pixelCentres(width), vs = pixelCentres(height), fw = Float(width), fh = Float(height)
        self.init(width: width, height: height, oneReadEach: true) { x, y, reads in
            reads.append(point(us[x], vs[y]).map { (u, v) in (u * fw, v * fh) })
        }
    }

    /// The map of a 4:2:0 picture's chroma planes (`lumaWidth/2` × `lumaHeight/2`) under
    /// `distortion`, which is defined on the luma picture. A chroma sample stands for a
    /// 2×2 patch of luma pixels about where it sits, so it becomes the mean of four reads
    /// where the patch's corners read: near what converting to RGB, distorting and
    /// subsampling would give, where one read per sample smears colours across a tight
    /// swirl's turns
    /// (docs/filters.md, "How the engine runs a chain").
    public init(chromaOf distortion: some Distortion, lumaWidth: Int, lumaHeight: Int) {
        let point = distortion.sourcePoints(width: lumaWidth, height: lumaHeight)
        let vs = pixelCentres(lumaHeight), fw = Float(lumaWidth), fh = Float(lumaHeight)
        self.init(width: lumaWidth / 2, height: lumaHeight / 2, oneReadEach: false) { x, y, out in
            // Sample (x, y) sits on luma column 2x's centre, between rows 2y and 2y + 1:
            // its reads are half a pixel either side across, on the two rows down. Luma
            // u·W in chroma pixels (centres at +½): (u·W − ½)/2 + ½ across, v·H/2 down.
            let reads = (0..<4).map { k in
                point(Float(2 * x + k & 1) / fw, vs[2 * y + k >> 1]).map { (u, v) in ((u * fw - 0.5) / 2 + 0.5, v * fh / 2) }
            }
            // Where the four land as an unbent patch would (each within ½ a chroma pixel
            // of their mean; undistorted, 0.35), one read at their mean gives the same
            // colour without the four reads' slight blur; where the map bends or shrinks
            // the patch, the four are kept.
            let landed = reads.compactMap { $0 }
            guard landed.count == 4 else {
                out += landed.isEmpty ? [nil] : reads
                return
            }
            let mx = landed.reduce(0) { $0 + $1.0 } / 4, my = landed.reduce(0) { $0 + $1.1 } / 4
            let spread = landed.reduce(Float(0)) { max($0, ($1.0 - mx) * ($1.0 - mx) + ($1.1 - my) * ($1.1 - my)) }
            out += spread <= 0.25 ? [(mx, my)] : reads
        }
    }

    /// `reads(x, y, &out)` appends where each read of sample (x, y) reads, in continuous
    /// pixel coordinates of this plane (pixel centres at +½), nil for a black read.
    /// `oneReadEach`: every sample has one read (a picture's map, not chroma's).
    private init(width: Int, height: Int, oneReadEach: Bool, reads: (Int, Int, inout [(Float, Float)?]) -> Void) {
        self.width = width
        self.height = height
        precondition(width <= 1 << 16 && height <= 1 << 16, "a sample map of a picture over 65536 pixels a side")
        var corner: [UInt32] = [], steps: [UInt8] = [], tx: [Float] = [], ty: [Float] = [], taps: [UInt8] = []
        let count = width * height
        corner.reserveCapacity(count)
        steps.reserveCapacity(count)
        tx.reserveCapacity(count)
        ty.reserveCapacity(count)
        if !oneReadEach { taps.reserveCapacity(count) }
        let maxX = Float(width - 1), maxY = Float(height - 1)
        var here: [(Float, Float)?] = []
        for y in 0..<height {
            for x in 0..<width {
                here.removeAll(keepingCapacity: true)
                reads(x, y, &here)
                if !oneReadEach { taps.append(UInt8(here.count)) }
                for read in here {
                    guard let (px, py) = read else {
                        corner.append(Self.black)
                        steps.append(0)
                        tx.append(0)
                        ty.append(0)
                        continue
                    }
                    let tap = BilinearTap(x: px, y: py, width: width, height: height, maxX: maxX, maxY: maxY)
                    corner.append(UInt32(tap.y0) << 16 | UInt32(tap.x0))
                    steps.append(UInt8(tap.x1 - tap.x0) | UInt8(tap.y1 - tap.y0) << 1)
                    tx.append(tap.tx)
                    ty.append(tap.ty)
                }
            }
        }
        (self.corner, self.steps, self.tx, self.ty) = (corner, steps, tx, ty)
        self.taps = oneReadEach ? nil : taps
    }

    /// Writes every sample of an 8-bit plane `destination` from `source` (both
    /// `width`×`height`): the mean of its bilinear reads in `Float` (`black` for a read
    /// where the map is black), rounded to the nearest whole value.
    public func apply(plane source: UnsafePointer<UInt8>, stride sourceStride: Int,
                      into destination: UnsafeMutablePointer<UInt8>, stride destinationStride: Int, black: UInt8) {
        forEachSample(sourceStride: sourceStride, black: Float(black)) { offset, fx, fy in
            (Self.blend(source, offset, fx, fy), 0)
        } write: { x, y, value, _ in
            destination[y * destinationStride + x] = Self.round(value)
        }
    }

    /// The same for two planes read through this map (a picture's Cb and Cr): each read's
    /// place and weights are loaded once for both.
    public func apply(planes first: UnsafePointer<UInt8>, _ second: UnsafePointer<UInt8>, stride sourceStride: Int,
                      into firstOut: UnsafeMutablePointer<UInt8>, _ secondOut: UnsafeMutablePointer<UInt8>,
                      stride destinationStride: Int, black: UInt8) {
        forEachSample(sourceStride: sourceStride, black: Float(black)) { offset, fx, fy in
            (Self.blend(first, offset, fx, fy), Self.blend(second, offset, fx, fy))
        } write: { x, y, a, b in
            firstOut[y * destinationStride + x] = Self.round(a)
            secondOut[y * destinationStride + x] = Self.round(b)
        }
    }

    /// Offsets of a read's four bytes from the plane's start: top-left, top-right,
    /// bottom-left, bottom-right.
    typealias Corners = (Int, Int, Int, Int)

    @inline(__always)
    private static func blend(_ plane: UnsafePointer<UInt8>, _ o: Corners, _ fx: Float, _ fy: Float) -> Float {
        let top = Float(plane[o.0]) + (Float(plane[o.1]) - Float(plane[o.0])) * fx
        let bottom = Float(plane[o.2]) + (Float(plane[o.3]) - Float(plane[o.2])) * fx
        return top + (bottom - top) * fy
    }

    /// A value in 0 … 255 to the nearest whole number (halves to even), read from the
    /// float's bits: adding 2²³ leaves the rounded value in the mantissa. No libm call
    /// and no trapping conversion.
    @inline(__always)
    private static func round(_ v: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: (v + 0x1p23).bitPattern)
    }

    /// For every sample: the mean over its reads of `read(corners, tx, ty)` (two values
    /// at once; `black` for a black read), given to `write(x, y, first, second)`.
    @inline(__always)
    private func forEachSample(sourceStride: Int, black: Float, _ read: (Corners, Float, Float) -> (Float, Float),
                               write: (Int, Int, Float, Float) -> Void) {
        corner.withUnsafeBufferPointer { corner in steps.withUnsafeBufferPointer { steps in
        tx.withUnsafeBufferPointer { tx in ty.withUnsafeBufferPointer { ty in
            @inline(__always)
            func tap(_ i: Int) -> (Float, Float) {
                let c = corner[i]
                guard c != Self.black else { return (black, black) }
                let s = Int(steps[i]), o00 = Int(c >> 16) * sourceStride + Int(c & 0xFFFF)
                let o01 = o00 + (s >> 1) * sourceStride
                return read((o00, o00 + (s & 1), o01, o01 + (s & 1)), tx[i], ty[i])
            }
            guard let taps else {
                for y in 0..<height {
                    for x in 0..<width {
                        let (a, b) = tap(y * width + x)
                        write(x, y, a, b)
                    }
                }
                return
            }
            taps.withUnsafeBufferPointer { taps in
                var i = 0, sample = 0
                for y in 0..<height {
                    for x in 0..<width {
                        if taps[sample] == 1 {
                            let (a, b) = tap(i)
                            write(x, y, a, b)
                            i += 1
                        } else {
                            let (a0, b0) = tap(i), (a1, b1) = tap(i + 1), (a2, b2) = tap(i + 2), (a3, b3) = tap(i + 3)
                            write(x, y, (a0 + a1 + a2 + a3) * 0.25, (b0 + b1 + b2 + b3) * 0.25)
                            i += 4
                        }
                        sample += 1
                    }
                }
            }
        } } } }
    }

    /// Writes every pixel of `destination` from `source` (both `width`×`height`).
    public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
        precondition(source.width == width && source.height == height, "a sample map applied to a picture of another size")
        let w = width
        source.r.withUnsafeBufferPointer { sr in source.g.withUnsafeBufferPointer { sg in source.b.withUnsafeBufferPointer { sb in
            forEachRead(into: &destination) { x0, y0, right, down, fx, fy in
                let b = y0 * w + x0, i10 = b + right, i01 = b + down * w, i11 = i01 + right
                return (PlaneReader.blend(sr, b, i10, i01, i11, fx, fy), PlaneReader.blend(sg, b, i10, i01, i11, fx, fy),
                        PlaneReader.blend(sb, b, i10, i01, i11, fx, fy))
            }
        } } }
    }

    /// Writes every pixel of `destination` from a packed 8-bit RGB picture whose value v
    /// means `leading[v]` (a chain's first step reads the frame as it comes: the three
    /// bytes of a pixel lie together, so a read touches 2 cache lines where float planes
    /// take 6). The same bits as reading float planes that hold `leading[v]`.
    public func apply(packed rgb: UnsafePointer<UInt8>, stride: Int, leading: UnsafePointer<Float>,
                      into destination: inout PlanarPicture) {
        forEachRead(into: &destination) { x0, y0, right, down, fx, fy in
            let p00 = rgb + y0 * stride + 3 * x0, p10 = p00 + 3 * right, p01 = p00 + down * stride, p11 = p01 + 3 * right
            @inline(__always)
            func blend(_ k: Int) -> Float {
                let top = leading[Int(p00[k])] + (leading[Int(p10[k])] - leading[Int(p00[k])]) * fx
                let bottom = leading[Int(p01[k])] + (leading[Int(p11[k])] - leading[Int(p01[k])]) * fx
                return top + (bottom - top) * fy
            }
            return (blend(0), blend(1), blend(2))
        }
    }

    /// Calls `read(x0, y0, right, down, tx, ty)` for every pixel that is not black and
    /// writes what it gives, clamped; `right` and `down` are 1 where the read's other
    /// pixels are the next column and row, 0 at the last.
    @inline(__always)
    private func forEachRead(into destination: inout PlanarPicture,
                             _ read: (Int, Int, Int, Int, Float, Float) -> (Float, Float, Float)) {
        precondition(destination.width == width && destination.height == height, "a sample map written to a picture of another size")
        precondition(taps == nil, "a chroma map applied to an RGB picture")
        corner.withUnsafeBufferPointer { corner in steps.withUnsafeBufferPointer { steps in
        tx.withUnsafeBufferPointer { tx in ty.withUnsafeBufferPointer { ty in
        destination.r.withUnsafeMutableBufferPointer { dr in destination.g.withUnsafeMutableBufferPointer { dg in
        destination.b.withUnsafeMutableBufferPointer { db in
            for i in 0..<corner.count {
                let c = corner[i]
                guard c != Self.black else {
                    dr[i] = 0
                    dg[i] = 0
                    db[i] = 0
                    continue
                }
                let s = Int(steps[i])
                let (r, g, b) = read(Int(c & 0xFFFF), Int(c >> 16), s & 1, s >> 1, tx[i], ty[i])
                dr[i] = clampUnit(r)
                dg[i] = clampUnit(g)
                db[i] = clampUnit(b)
            }
        } } } } } } }
    }
}
