import Foundation
import SessionKit

/// The colour filters of one segment, ready to run on 8-bit RGB (DESIGN §5): GPUImage's
/// formulas on full-range RGB in [0, 1], clamped after each filter.
///
/// Leading per-channel filters (brightness, contrast, exposure) are folded into one
/// 256-entry table computed from the formulas; when every filter is per-channel the
/// whole chain is one table lookup. Arithmetic is scalar `Float` with no fused
/// multiply-add, so its result does not depend on the processor.
public struct ColorFilterChain: Sendable {
    enum Stage: Sendable {
        case brightness(Float)
        case contrast(Float)
        /// Holds the multiplier `2^a`, computed once.
        case exposure(Float)
        case saturation(Float)
        case lut(CubeLUT, Float)

        var isPerChannel: Bool {
            switch self {
            case .brightness, .contrast, .exposure: return true
            case .saturation, .lut: return false
            }
        }

        @inline(__always)
        func channel(_ x: Float) -> Float {
            switch self {
            case .brightness(let a): return clamp(x + a)
            case .contrast(let a): return clamp((x - 0.5) * a + 0.5)
            case .exposure(let factor): return clamp(x * factor)
            case .saturation, .lut: return x
            }
        }
    }

    let stages: [Stage]
    /// Value after the leading per-channel stages, for each 8-bit input.
    let leading: [Float]
    /// The rest, applied per pixel.
    let rest: [Stage]
    /// When every stage is per-channel: the whole chain as an 8-bit table.
    let table: [UInt8]?

    public var isIdentity: Bool { stages.isEmpty }

    /// `resolveFile` turns a filter's `file` into a readable URL (checked against the roots).
    public init(filters: [SessionFilter], registry: FilterRegistry = .builtIn,
                resolveFile: (String) throws -> URL) throws {
        var stages: [Stage] = []
        for filter in filters {
            guard let definition = registry[filter.type] else {
                throw EngineError("unknown filter type '\(filter.type)'")
            }
            // Skip filters that change nothing at their intensity. Not `isActive`: a LUT at its
            // default intensity (100) is applied in full.
            let a = Float(filter.actualIntensity(in: definition))
            let identity: Float = ["contrast", "saturation"].contains(filter.type) ? 1 : 0
            guard a != identity else { continue }
            switch filter.type {
            case "brightness": stages.append(.brightness(a))
            case "contrast": stages.append(.contrast(a))
            case "exposure": stages.append(.exposure(Float(pow(2.0, Double(a)))))
            case "saturation": stages.append(.saturation(a))
            case "lut":
                guard let file = filter.file else { throw EngineError("lut filter without a file") }
                stages.append(.lut(try CubeLUT(contentsOf: try resolveFile(file)), a))
            default:
                throw EngineError("filter type '\(filter.type)' is registered but this engine cannot render it")
            }
        }
        self.init(stages: stages)
    }

    init(stages: [Stage]) {
        self.stages = stages
        let split = stages.firstIndex { !$0.isPerChannel } ?? stages.count
        let head = stages[..<split]
        leading = (0..<256).map { value in head.reduce(Float(value) / 255) { $1.channel($0) } }
        rest = Array(stages[split...])
        table = rest.isEmpty ? leading.map(quantize) : nil
    }

    /// Runs the chain in place on packed RGB24 rows.
    public func apply(rgb: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int) {
        guard !isIdentity else { return }
        if let table {
            table.withUnsafeBufferPointer { t in
                for y in 0..<height {
                    let row = rgb + y * stride
                    for i in 0..<(width * 3) { row[i] = t[Int(row[i])] }
                }
            }
            return
        }
        // Row by row in three float planes, one stage at a time over the row: no dispatch per
        // pixel, and loops simple enough for the compiler to vectorise (same IEEE results).
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
                    for stage in rest { stage.apply(r, g, b, count: width) }
                    for x in 0..<width {
                        row[3 * x] = quantize(r[x])
                        row[3 * x + 1] = quantize(g[x])
                        row[3 * x + 2] = quantize(b[x])
                    }
                }
            }
        }
    }
}

extension ColorFilterChain.Stage {
    /// Runs this stage over `count` pixels held in three planes.
    func apply(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, count: Int) {
        switch self {
        case .saturation(let a):
            for x in 0..<count {
                let lum = r[x] * 0.2125 + g[x] * 0.7154 + b[x] * 0.0721
                r[x] = clamp(lum + (r[x] - lum) * a)
                g[x] = clamp(lum + (g[x] - lum) * a)
                b[x] = clamp(lum + (b[x] - lum) * a)
            }
        case .lut(let lut, let a):
            lut.blend(r, g, b, count: count, amount: a)
        default:
            for x in 0..<count {
                r[x] = channel(r[x])
                g[x] = channel(g[x])
                b[x] = channel(b[x])
            }
        }
    }
}

@inline(__always)
func clamp(_ x: Float) -> Float { min(max(x, 0), 1) }

@inline(__always)
func quantize(_ x: Float) -> UInt8 { UInt8(min(max(x * 255 + 0.5, 0), 255)) }
