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

    /// The chain of `filters` as `registry` defines them, with files from `assets`.
    public init(filters: [SessionFilter], registry: FilterRegistry, assets: [String: FilterAssetFile]) throws {
        var stages: [FilterStage] = []
        for filter in filters {
            guard let definition = registry[filter.type] else {
                throw EngineError("unknown filter type '\(filter.type)'")
            }
            stages += filter.stages(in: definition)
        }
        try self.init(stages: stages, assets: assets)
    }

    init(stages: [FilterStage], assets: [String: FilterAssetFile] = [:]) throws {
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
            case .picture(let op):
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
    }

    /// Runs the chain in place on packed RGB24 rows. `workspace` keeps the float pictures
    /// of chains with picture passes, and the colours a per-pixel chain has seen, from one
    /// frame to the next. `remembering: false` computes every pixel (tests compare the two).
    public func apply(rgb: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int,
                      workspace: FilterWorkspace = FilterWorkspace(), remembering: Bool = true) {
        guard !isIdentity else { return }
        if let table {
            table.withUnsafeBufferPointer { t in
                for y in 0..<height {
                    let row = rgb + y * stride
                    for i in 0..<(width * 3) { row[i] = t[Int(row[i])] }
                }
            }
        } else if steps.count == 1, case .pixels(let ops) = steps[0] {
            if remembering, !ops.contains(where: \.dependsOnPosition) {
                workspace.memo(for: identity).apply(ops, leading: leading, rgb: rgb, width: width, height: height, stride: stride)
            } else {
                streamRows(ops, rgb: rgb, width: width, height: height, stride: stride)
            }
        } else {
            applyInPlanes(rgb: rgb, width: width, height: height, stride: stride, workspace: workspace)
        }
    }

    /// One row at a time in three float planes: the row stays in cache through every stage.
    private func streamRows(_ ops: [any PixelOperation], rgb: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int) {
        var planes = [Float](repeating: 0, count: width * 3)
        leading.withUnsafeBufferPointer { lead in
            planes.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                let r = base, g = base + width, b = base + 2 * width
                for y in 0..<height {
                    let row = rgb + y * stride
                    for x in 0..<width {
                        r[x] = lead[Int(row[3 * x])]
                        g[x] = lead[Int(row[3 * x + 1])]
                        b[x] = lead[Int(row[3 * x + 2])]
                    }
                    let pixels = PixelRow(r: r, g: g, b: b, count: width, y: y, width: width, height: height)
                    for op in ops { op.apply(pixels) }
                    for x in 0..<width {
                        row[3 * x] = quantize(r[x])
                        row[3 * x + 1] = quantize(g[x])
                        row[3 * x + 2] = quantize(b[x])
                    }
                }
            }
        }
    }

    /// The whole picture in float planes, stage after stage.
    private func applyInPlanes(rgb: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int,
                               workspace: FilterWorkspace) {
        var (picture, spare) = workspace.take(width: width, height: height)
        defer { workspace.keep(picture, spare) }
        leading.withUnsafeBufferPointer { lead in
            for y in 0..<height {
                let row = rgb + y * stride
                for x in 0..<width {
                    picture.r[y * width + x] = lead[Int(row[3 * x])]
                    picture.g[y * width + x] = lead[Int(row[3 * x + 1])]
                    picture.b[y * width + x] = lead[Int(row[3 * x + 2])]
                }
            }
        }
        for step in steps {
            switch step {
            case .pixels(let ops):
                picture.r.withUnsafeMutableBufferPointer { r in
                    picture.g.withUnsafeMutableBufferPointer { g in
                        picture.b.withUnsafeMutableBufferPointer { b in
                            for y in 0..<height {
                                let pixels = PixelRow(r: r.baseAddress! + y * width, g: g.baseAddress! + y * width,
                                                      b: b.baseAddress! + y * width, count: width, y: y, width: width, height: height)
                                for op in ops { op.apply(pixels) }
                            }
                        }
                    }
                }
            case .picture(let op):
                op.apply(picture, into: &spare)
                swap(&picture, &spare)
            }
        }
        for y in 0..<height {
            let row = rgb + y * stride
            for x in 0..<width {
                row[3 * x] = quantize(picture.r[y * width + x])
                row[3 * x + 1] = quantize(picture.g[y * width + x])
                row[3 * x + 2] = quantize(picture.b[y * width + x])
            }
        }
    }
}

@inline(__always)
func quantize(_ x: Float) -> UInt8 { UInt8(min(max(x * 255 + 0.5, 0), 255)) }

/// The two float pictures a chain with picture passes works in, kept between frames (a
/// 1080p picture is 24 MB: allocating and clearing it every frame costs more than most
/// filters). Used by one thread at a time.
public final class FilterWorkspace {
    private var pictures: (PlanarPicture, PlanarPicture)?
    private var memo: ColourMemo?

    public init() {}

    func take(width: Int, height: Int) -> (PlanarPicture, PlanarPicture) {
        if let kept = pictures, kept.0.width == width, kept.0.height == height {
            pictures = nil
            return kept
        }
        return (PlanarPicture(width: width, height: height), PlanarPicture(width: width, height: height))
    }

    func keep(_ a: PlanarPicture, _ b: PlanarPicture) { pictures = (a, b) }

    /// The memo of `chain`'s results; a new one when the workspace last served another chain.
    func memo(for chain: FilterChain.Identity) -> ColourMemo {
        if let memo, memo.owner === chain { return memo }
        let made = ColourMemo(owner: chain)
        memo = made
        return made
    }
}
