import Foundation
import SessionKit

/// The filters of one segment or image, fused for 8-bit RGB pictures (docs/filters.md):
/// leading per-channel stages become one 256-entry table (the whole chain, when every
/// stage is per-channel); per-pixel stages run row by row over float planes, in cache;
/// a chain with picture passes (sharpness, straighten, perspective) keeps the whole
/// picture in float planes between stages. Arithmetic is IEEE `Float` with no fused
/// multiply-add and no libm, so the result does not depend on the processor.
public struct FilterChain: Sendable {
    enum Step: Sendable {
        case pixels([any PixelOperation])
        case picture(any PictureOperation)
    }

    /// Value after the leading per-channel stages, for each 8-bit input.
    let leading: [Float]
    let steps: [Step]
    /// When every stage is per-channel: the whole chain as an 8-bit table.
    let table: [UInt8]?
    public let isIdentity: Bool
    /// A stage moves pixels: run the chain on the oriented picture.
    public let needsOrientedPicture: Bool
    /// Names this chain to a workspace's `ColourMemo` (shared by copies of the chain).
    let identity = Identity()
    final class Identity: Sendable {}

    /// The chain of `filters` as `registry` defines them, with files from `assets`, for a
    /// picture `pixelScale` times the render size (stills; docs/rendering.md, "Thumbnails and frames").
    public init(filters: [SessionFilter], registry: FilterRegistry, assets: [String: FilterAssetFile],
                pixelScale: Double = 1) throws {
        var stages: [FilterStage] = []
        for filter in filters {
            guard let definition = registry[filter.type] else {
                throw EngineError("unknown filter type '\(filter.type)'")
            }
            stages += filter.stages(in: definition)
        }
        try self.init(stages: stages, assets: assets, pixelScale: pixelScale)
    }

    init(stages: [FilterStage], assets: [String: FilterAssetFile] = [:], pixelScale: Double = 1) throws {
        var leadingOps: [any ChannelOperation] = []
        var steps: [Step] = []
        var pending: [any PixelOperation] = []
        var oriented = false
        for stage in stages {
            switch stage {
            case .channel(let op) where steps.isEmpty && pending.isEmpty:
                leadingOps.append(op)
            case .channel(let op):
                pending.append(op)
            case .pixel(let op):
                pending.append(op)
            case .asset(let asset, let amount):
                guard let file = assets[asset.reference] else {
                    throw EngineError("'\(asset.reference)' was not loaded")
                }
                pending.append(file.operation(amount: amount))
            case .picture(let unscaled):
                let op = pixelScale == 1 ? unscaled : unscaled.scaled(by: Float(pixelScale))
                if !pending.isEmpty { steps.append(.pixels(pending)); pending = [] }
                steps.append(.picture(op))
                oriented = oriented || op.needsOrientedPicture
            }
        }
        if !pending.isEmpty { steps.append(.pixels(pending)) }
        leading = (0..<256).map { value in
            leadingOps.reduce(Float(value) / 255) { clampUnit($1.channel($0)) }
        }
        self.steps = steps
        table = steps.isEmpty ? leading.map(quantize) : nil
        isIdentity = stages.isEmpty
        needsOrientedPicture = oriented
        distortion = if leadingOps.isEmpty, steps.count == 1, case .picture(let op as any Distortion) = steps[0] { op } else { nil }
        greyFromLuminance = if leadingOps.isEmpty, steps.count == 1, case .picture(let op as any GreyFromLuminance) = steps[0] {
            op
        } else {
            nil
        }
    }

    /// When the chain is one stage that only moves pixels (swirl, bulge, pinch, stretch,
    /// sphereRefraction): that distortion, which a Y′CbCr picture can go through plane by
    /// plane without becoming RGB (`applyToPlanes`). Chains of several keep the RGB path:
    /// each pass through 4:2:0 chroma would soften the colours again.
    public let distortion: (any Distortion)?
    /// When the chain is one grey effect of luminance (sketch, edgeDetection): that
    /// effect, which a Y′CbCr picture runs on its luma (`applyGrey`).
    public let greyFromLuminance: (any GreyFromLuminance)?

    /// The chain has no picture pass, so it can run one row at a time (`applyRow`).
    public var runsByRow: Bool {
        switch steps.count {
        case 0: true
        case 1: if case .pixels = steps[0] { true } else { false }
        default: false
        }
    }

    /// Runs the chain in place on packed RGB24 rows. `workspace` keeps the float pictures
    /// of chains with picture passes, and the colours a per-pixel chain has seen, from one
    /// frame to the next. `remembering: false` computes every pixel (tests compare the two).
    public func apply(rgb: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int,
                      workspace: FilterWorkspace = FilterWorkspace(), remembering: Bool = true) {
        guard !isIdentity else { return }
        guard runsByRow else {
            applyInPlanes(rgb: rgb, width: width, height: height, stride: stride, workspace: workspace)
            return
        }
        let row = workspace.planarRow(width: width)
        for y in 0..<height {
            row.load(packed: rgb + y * stride)
            applyRow(row, y: y, height: height, workspace: workspace, remembering: remembering)
            row.store(packed: rgb + y * stride)
        }
    }

    /// Whether per-pixel stages `ops` go through the colour memo: not when a stage depends
    /// on position, nor when every stage is light (cheaper to run than to look up: on 4K
    /// phone footage with grain at 1080p, saturation alone took 4.2 % of the render's CPU
    /// run directly and 5.7 % through the memo, whose 1 MB table also fills a core's cache).
    static func remembers(_ ops: [any PixelOperation]) -> Bool {
        !ops.contains(where: \.dependsOnPosition) && !ops.allSatisfy(\.isLight)
    }

    /// Runs a chain that `runsByRow` in place on row `y` of a picture `height` rows high:
    /// the whole chain as one table, or per-pixel stages through the workspace's colour
    /// memo (`remembers`), or over float planes of the row.
    func applyRow(_ row: PlanarRGBRow, y: Int, height: Int, workspace: FilterWorkspace, remembering: Bool = true) {
        guard !isIdentity else { return }
        let width = row.width
        if let table {
            let r = row.r, g = row.g, b = row.b
            table.withUnsafeBufferPointer { t in
                for x in 0..<width {
                    r[x] = t[Int(r[x])]
                    g[x] = t[Int(g[x])]
                    b[x] = t[Int(b[x])]
                }
            }
            return
        }
        guard steps.count == 1, case .pixels(let ops) = steps[0] else {
            preconditionFailure("applyRow on a chain with picture passes (check runsByRow)")
        }
        let scratch = workspace.rowScratch(width: width)
        leading.withUnsafeBufferPointer { lead in
            guard let lead = lead.baseAddress else { return }
            if remembering, Self.remembers(ops) {
                workspace.memo(for: identity).apply(ops, leading: lead, row: row, y: y, height: height, scratch: scratch)
                return
            }
            let r = scratch.r.pointer, g = scratch.g.pointer, b = scratch.b.pointer
            for x in 0..<width {
                r[x] = lead[Int(row.r[x])]
                g[x] = lead[Int(row.g[x])]
                b[x] = lead[Int(row.b[x])]
            }
            let pixels = PixelRow(r: r, g: g, b: b, count: width, y: y, width: width, height: height)
            for op in ops { op.apply(pixels) }
            for x in 0..<width {
                row.r[x] = quantize(r[x])
                row.g[x] = quantize(g[x])
                row.b[x] = quantize(b[x])
            }
        }
    }

    /// Runs a chain that is one `distortion` on a Y′CbCr 4:2:0 picture (8-bit,
    /// `width`×`height`) from `source` into `destination`: luma through the distortion's
    /// map, chroma through its chroma map. Black is (16, 128, 128), BT.709 limited range's.
    public func applyToPlanes(source: YCbCrPlanes, destination: YCbCrPlanes, width: Int, height: Int,
                              workspace: FilterWorkspace) {
        guard let distortion else { preconditionFailure("applyToPlanes on a chain that does more than move pixels") }
        let luma = workspace.sampleMap(distortion, step: 0, of: identity, width: width, height: height)
        let chroma = workspace.sampleMap(distortion, step: 0, of: identity, width: width, height: height, chroma: true)
        luma.apply(plane: source.y, stride: source.yStride, into: destination.y, stride: destination.yStride, black: 16)
        chroma.apply(planes: source.cb, source.cr, stride: source.chromaStride, into: destination.cb, destination.cr,
                     stride: destination.chromaStride, black: 128)
    }

    /// Runs a chain that is one grey effect of luminance on a BT.709 limited Y′CbCr 4:2:0
    /// picture (8-bit, `width`×`height`) in place: L = (Y′ − 16)/219, the effect's grey g
    /// back as Y′ = 16 + 219·g, chroma 128 (grey).
    public func applyGrey(to planes: YCbCrPlanes, width: Int, height: Int) {
        guard let greyFromLuminance else { preconditionFailure("applyGrey on a chain that is not one grey effect") }
        let luma = [Float](unsafeUninitializedCapacity: width * height) { luma, count in
            for y in 0..<height {
                let row = planes.y + y * planes.yStride
                for x in 0..<width { luma[y * width + x] = clampUnit((Float(row[x]) - 16) / 219) }
            }
            count = width * height
        }
        let grey = greyFromLuminance.grey(fromLuminance: luma, width: width, height: height)
        for y in 0..<height {
            let row = planes.y + y * planes.yStride
            // 16 … 235: truncating v + ½ rounds it.
            for x in 0..<width { row[x] = UInt8(truncatingIfNeeded: Int32(16 + 219 * grey[y * width + x] + 0.5)) }
        }
        for y in 0..<(height / 2) {
            (planes.cb + y * planes.chromaStride).update(repeating: 128, count: width / 2)
            (planes.cr + y * planes.chromaStride).update(repeating: 128, count: width / 2)
        }
    }

    /// The whole picture in float planes, stage after stage.
    private func applyInPlanes(rgb: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int,
                               workspace: FilterWorkspace) {
        var (picture, spare) = workspace.take(width: width, height: height)
        defer { workspace.keep(picture, spare) }
        // A leading distortion reads the packed picture itself (`SampleMap`).
        let leadingDistortion: (any Distortion)? = if case .picture(let op as any Distortion) = steps.first { op } else { nil }
        leading.withUnsafeBufferPointer { lead in
            if let op = leadingDistortion, let lead = lead.baseAddress {
                workspace.sampleMap(op, step: 0, of: identity, width: width, height: height)
                    .apply(packed: rgb, stride: stride, leading: lead, into: &picture)
                return
            }
            picture.withPlanes { r, g, b in
                for y in 0..<height {
                    let row = rgb + y * stride, r = r + y * width, g = g + y * width, b = b + y * width
                    for x in 0..<width {
                        r[x] = lead[Int(row[3 * x])]
                        g[x] = lead[Int(row[3 * x + 1])]
                        b[x] = lead[Int(row[3 * x + 2])]
                    }
                }
            }
        }
        for (index, step) in steps.enumerated() where index > 0 || leadingDistortion == nil {
            switch step {
            case .pixels(let ops):
                picture.withPlanes { r, g, b in
                    for y in 0..<height {
                        let pixels = PixelRow(r: r + y * width, g: g + y * width, b: b + y * width,
                                              count: width, y: y, width: width, height: height)
                        for op in ops { op.apply(pixels) }
                    }
                }
            case .picture(let op as any Distortion):
                workspace.sampleMap(op, step: index, of: identity, width: width, height: height).apply(picture, into: &spare)
                swap(&picture, &spare)
            case .picture(let op):
                op.apply(picture, into: &spare)
                swap(&picture, &spare)
            }
        }
        picture.withPlanes { r, g, b in
            for y in 0..<height {
                let row = rgb + y * stride, r = r + y * width, g = g + y * width, b = b + y * width
                for x in 0..<width {
                    row[3 * x] = quantize(r[x])
                    row[3 * x + 1] = quantize(g[x])
                    row[3 * x + 2] = quantize(b[x])
                }
            }
        }
    }
}

/// The three planes of an 8-bit Y′CbCr 4:2:0 picture, where they are.
public struct YCbCrPlanes {
    let y: UnsafeMutablePointer<UInt8>
    let yStride: Int
    let cb: UnsafeMutablePointer<UInt8>
    let cr: UnsafeMutablePointer<UInt8>
    let chromaStride: Int
}

extension PlanarPicture {
    /// The three planes' storage, for loops that index them without bounds checks.
    mutating func withPlanes<T>(_ body: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) -> T) -> T {
        r.withUnsafeMutableBufferPointer { r in g.withUnsafeMutableBufferPointer { g in b.withUnsafeMutableBufferPointer { b in
            // A picture has at least one pixel, so its planes have storage.
            body(r.baseAddress.unsafelyUnwrapped, g.baseAddress.unsafelyUnwrapped, b.baseAddress.unsafelyUnwrapped)
        } } }
    }
}

/// 8 bits of a [0, 1] value: ⌊x·255 + 0.5⌋, clamped to 0 … 255. The integer is read from
/// the float's bits (adding 2²³ puts a whole number below 2²³ in the mantissa, exactly),
/// so loops over it vectorise, which a trapping float-to-integer conversion prevents.
@inline(__always)
func quantize(_ x: Float) -> UInt8 {
    let whole = min(max(x * 255 + 0.5, 0), 255).rounded(.down)
    return UInt8(truncatingIfNeeded: (whole + 0x1p23).bitPattern)
}

/// The two float pictures a chain with picture passes works in, kept between frames (a
/// 1080p picture is 24 MB: allocating and clearing it every frame costs more than most
/// filters). Used by one thread at a time.
public final class FilterWorkspace {
    private var pictures: (PlanarPicture, PlanarPicture)?
    private var memo: ColourMemo?
    private var row: PlanarRGBRow?
    private var scratch: ChainRowScratch?
    /// The sample maps of one chain's distortions, by step: the same for every frame.
    private var maps: (owner: FilterChain.Identity, byStep: [MapKey: SampleMap])?
    private struct MapKey: Hashable { let step: Int, chroma: Bool }

    public init() {}

    func take(width: Int, height: Int) -> (PlanarPicture, PlanarPicture) {
        if let kept = pictures, kept.0.width == width, kept.0.height == height {
            pictures = nil
            return kept
        }
        return (PlanarPicture(width: width, height: height), PlanarPicture(width: width, height: height))
    }

    func keep(_ a: PlanarPicture, _ b: PlanarPicture) { pictures = (a, b) }

    /// A planar row `width` pixels wide, kept for the next call.
    func planarRow(width: Int) -> PlanarRGBRow {
        if let row, row.width == width { return row }
        let made = PlanarRGBRow(width: width)
        row = made
        return made
    }

    /// The float rows and memo keys of a row-wise chain, kept for the next call.
    func rowScratch(width: Int) -> ChainRowScratch {
        if let scratch, scratch.width == width { return scratch }
        let made = ChainRowScratch(width: width)
        scratch = made
        return made
    }

    /// The map of `distortion`, step `step` of `chain`, for a picture `width`×`height`
    /// (or its 4:2:0 chroma planes): made on the first frame, kept for the next ones.
    func sampleMap(_ distortion: some Distortion, step: Int, of chain: FilterChain.Identity,
                   width: Int, height: Int, chroma: Bool = false) -> SampleMap {
        if maps?.owner !== chain { maps = (chain, [:]) }
        let key = MapKey(step: step, chroma: chroma)
        if let kept = maps?.byStep[key], kept.width == (chroma ? width / 2 : width), kept.height == (chroma ? height / 2 : height) {
            return kept
        }
        let made = chroma ? SampleMap(chromaOf: distortion, lumaWidth: width, lumaHeight: height)
                          : SampleMap(distortion, width: width, height: height)
        maps?.byStep[key] = made
        return made
    }

    /// The memo of `chain`'s results; a new one when the workspace last served another chain.
    func memo(for chain: FilterChain.Identity) -> ColourMemo {
        if let memo, memo.owner === chain { return memo }
        let made = ColourMemo(owner: chain)
        memo = made
        return made
    }
}
