import Foundation
import SessionKit

/// A 3D colour lookup table read from an Adobe/Resolve `.cube` file.
public struct CubeLUT: Sendable, Hashable {
    public let size: Int
    /// r varies fastest, then g, then b; `size³` RGB triples.
    public let table: [Float]
    public let domainMin: [Float]
    public let domainMax: [Float]
    /// `table` and one more float, so the last corner loads as a 4-lane vector.
    let padded: [Float]

    public init(size: Int, table: [Float], domainMin: [Float] = [0, 0, 0], domainMax: [Float] = [1, 1, 1]) throws {
        guard (2...256).contains(size) else { throw EngineError("LUT_3D_SIZE \(size) is outside 2 … 256") }
        guard table.count == size * size * size * 3 else {
            throw EngineError("LUT has \(table.count / 3) entries, LUT_3D_SIZE \(size) needs \(size * size * size)")
        }
        guard zip(domainMin, domainMax).allSatisfy({ $0 < $1 }) else { throw EngineError("LUT domain is empty") }
        self.size = size
        self.table = table
        self.domainMin = domainMin
        self.domainMax = domainMax
        padded = table + [0]
    }

    public init(contentsOf url: URL) throws {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw EngineError("\(url.path): cannot read the LUT (\((error as NSError).localizedDescription))")
        }
        do {
            try self.init(parsing: text)
        } catch let error as EngineError {
            throw EngineError("\(url.path): \(error.description)")
        }
    }

    public init(parsing text: String) throws {
        var size: Int?
        var values: [Float] = []
        var domainMin: [Float] = [0, 0, 0], domainMax: [Float] = [1, 1, 1]
        for (number, raw) in text.split(whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            switch fields[0] {
            case "TITLE", "LUT_1D_INPUT_RANGE", "LUT_3D_INPUT_RANGE":
                continue
            case "LUT_1D_SIZE":
                throw EngineError("line \(number + 1): 1D LUTs are not supported")
            case "LUT_3D_SIZE":
                guard fields.count == 2, let n = Int(fields[1]) else { throw EngineError("line \(number + 1): bad LUT_3D_SIZE") }
                size = n
                values.reserveCapacity(min(n, 256) * min(n, 256) * min(n, 256) * 3)
            case "DOMAIN_MIN", "DOMAIN_MAX":
                let v = fields.dropFirst().compactMap { Float($0) }
                guard v.count == 3 else { throw EngineError("line \(number + 1): \(fields[0]) needs 3 numbers") }
                if fields[0] == "DOMAIN_MIN" { domainMin = v } else { domainMax = v }
            default:
                let v = fields.compactMap { Float($0) }
                guard v.count == 3, fields.count == 3, v.allSatisfy(\.isFinite) else {
                    throw EngineError("line \(number + 1): expected three numbers, found '\(line.prefix(40))'")
                }
                values.append(contentsOf: v)
            }
        }
        guard let size else { throw EngineError("no LUT_3D_SIZE line") }
        try self.init(size: size, table: values, domainMin: domainMin, domainMax: domainMax)
    }

    /// Blends `count` pixels (three planes, in place) toward their trilinear lookup by
    /// `amount`, clamped: `x + (lut(x) − x)·amount`. The three channels of each corner are
    /// interpolated together as one SIMD vector; lane by lane the operations are those of
    /// `sample` (no fused multiply-add), so the results are the same bits. The usual
    /// domain [0, 1] skips the normalisation, which is exact there. Clamps and integer
    /// parts stay scalar: the standard library's generic SIMD `clamped` and rounding
    /// conversions are not specialised here and cost more than the whole interpolation.
    func blend(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
               count: Int, amount a: Float) {
        let n = size - 1, s = size
        let lo = SIMD4<Float>(domainMin[0], domainMin[1], domainMin[2], 0)
        let span = SIMD4<Float>(domainMax[0] - domainMin[0], domainMax[1] - domainMin[1], domainMax[2] - domainMin[2], 1)
        let unitDomain = lo == .zero && span == .one
        let top = SIMD4<Float>(repeating: Float(n))
        let mixAmount = SIMD4<Float>(repeating: a)
        padded.withUnsafeBufferPointer { buffer in
            guard let t = buffer.baseAddress else { return }
            let raw = UnsafeRawPointer(t)
            let dr = 3, dg = s * 3, db = s * s * 3
            @inline(__always) func corner(_ offset: Int) -> SIMD4<Float> {
                raw.loadUnaligned(fromByteOffset: offset * 4, as: SIMD4<Float>.self)
            }
            for x in 0..<count {
                let v = SIMD4<Float>(r[x], g[x], b[x], 0)
                let q = unitDomain ? v : (v - lo) / span
                let u = SIMD4<Float>(clampUnit(q[0]), clampUnit(q[1]), clampUnit(q[2]), 0) * top
                let r0 = min(Int(u[0]), n - 1), g0 = min(Int(u[1]), n - 1), b0 = min(Int(u[2]), n - 1)
                let fr = SIMD4<Float>(repeating: u[0] - Float(r0))
                let fg = SIMD4<Float>(repeating: u[1] - Float(g0))
                let fb = SIMD4<Float>(repeating: u[2] - Float(b0))
                let p = ((b0 * s + g0) * s + r0) * 3
                let c000 = corner(p), c100 = corner(p + dr), c010 = corner(p + dg), c110 = corner(p + dg + dr)
                let c001 = corner(p + db), c101 = corner(p + db + dr), c011 = corner(p + db + dg), c111 = corner(p + db + dg + dr)
                let c00 = c000 + (c100 - c000) * fr
                let c10 = c010 + (c110 - c010) * fr
                let c01 = c001 + (c101 - c001) * fr
                let c11 = c011 + (c111 - c011) * fr
                let c0 = c00 + (c10 - c00) * fg
                let c1 = c01 + (c11 - c01) * fg
                let looked = c0 + (c1 - c0) * fb
                let blended = v + (looked - v) * mixAmount
                r[x] = clampUnit(blended[0])
                g[x] = clampUnit(blended[1])
                b[x] = clampUnit(blended[2])
            }
        }
    }

    /// Trilinear interpolation at one colour: the plain definition `blend` must equal.
    func sample(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
        let n = size - 1
        func coordinate(_ x: Float, _ c: Int) -> (Int, Int, Float) {
            let t = min(max((x - domainMin[c]) / (domainMax[c] - domainMin[c]), 0), 1) * Float(n)
            let i = min(Int(t), n - 1)
            return (i, i + 1, t - Float(i))
        }
        let (r0, r1, fr) = coordinate(r, 0)
        let (g0, g1, fg) = coordinate(g, 1)
        let (b0, b1, fb) = coordinate(b, 2)
        let s = size
        return table.withUnsafeBufferPointer { t in
            func at(_ ri: Int, _ gi: Int, _ bi: Int, _ c: Int) -> Float { t[((bi * s + gi) * s + ri) * 3 + c] }
            func channel(_ c: Int) -> Float {
                let c00 = at(r0, g0, b0, c) + (at(r1, g0, b0, c) - at(r0, g0, b0, c)) * fr
                let c10 = at(r0, g1, b0, c) + (at(r1, g1, b0, c) - at(r0, g1, b0, c)) * fr
                let c01 = at(r0, g0, b1, c) + (at(r1, g0, b1, c) - at(r0, g0, b1, c)) * fr
                let c11 = at(r0, g1, b1, c) + (at(r1, g1, b1, c) - at(r0, g1, b1, c)) * fr
                let c0 = c00 + (c10 - c00) * fg
                let c1 = c01 + (c11 - c01) * fg
                return c0 + (c1 - c0) * fb
            }
            return (channel(0), channel(1), channel(2))
        }
    }
}
