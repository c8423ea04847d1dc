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
    /// The domain is [0, 1]³, where normalising is the identity and is skipped.
    private let unitDomain: Bool

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
        unitDomain = domainMin == [0, 0, 0] && domainMax == [1, 1, 1]
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
    /// `amount`, clamped: `x + (lut(x) − x)·amount`. Lane by lane the operations are those
    /// of `sample` (no fused multiply-add), so the results are the same bits. Two passes
    /// over chunks of `chunk` pixels: the first finds each pixel's cell and fractions with
    /// plain float loops the compiler vectorises (floor by rounding, the integer read from
    /// the float's bits, so no trapping conversion stops it); the second reads the cell's
    /// eight corners as 4-lane vectors (r, g, b together) and interpolates them.
    func blend(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
               count: Int, amount a: Float) {
        let chunk = 256
        withUnsafeTemporaryAllocation(of: Float.self, capacity: chunk * 3) { fractions in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: chunk) { cells in
                guard let f = fractions.baseAddress, let cell = cells.baseAddress else { return }
                var start = 0
                while start < count {
                    let n = min(chunk, count - start)
                    locate(r + start, g + start, b + start, count: n, fractions: f, cells: cell)
                    interpolate(r + start, g + start, b + start, count: n, fractions: f, cells: cell, amount: a)
                    start += n
                }
            }
        }
    }

    /// Each pixel's cell (the float offset of its lowest corner in `padded`) and its three
    /// fractions within it, stored as `fractions[0..<count]` (r), then g, then b.
    private func locate(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int,
                        fractions: UnsafeMutablePointer<Float>, cells: UnsafeMutablePointer<Int32>) {
        let top = Float(size - 1), lastCell = Float(size - 2), s = Int32(size)
        let fr = fractions, fg = fractions + count, fb = fractions + 2 * count
        // Grid coordinate, lowest corner (`min(⌊u⌋, size − 2)`, as `sample` takes it) and fraction.
        @inline(__always) func split(_ u: Float) -> (corner: Int32, fraction: Float) {
            let corner = min(u.rounded(.down), lastCell)
            // 0 ≤ corner < 2²³: adding 2²³ puts its integer value in the mantissa, exactly.
            return (Int32(bitPattern: (corner + 0x1p23).bitPattern & 0x7F_FFFF), u - corner)
        }
        @inline(__always) func run(_ normalised: (Float, Int) -> Float) {
            for x in 0..<count {
                let (ri, rf) = split(clampUnit(normalised(r[x], 0)) * top)
                let (gi, gf) = split(clampUnit(normalised(g[x], 1)) * top)
                let (bi, bf) = split(clampUnit(normalised(b[x], 2)) * top)
                fr[x] = rf
                fg[x] = gf
                fb[x] = bf
                cells[x] = ((bi &* s &+ gi) &* s &+ ri) &* 3
            }
        }
        if unitDomain {
            run { value, _ in value }
        } else {
            let lo = (domainMin[0], domainMin[1], domainMin[2])
            let span = (domainMax[0] - lo.0, domainMax[1] - lo.1, domainMax[2] - lo.2)
            run { value, channel in
                switch channel {
                case 0: (value - lo.0) / span.0
                case 1: (value - lo.1) / span.1
                default: (value - lo.2) / span.2
                }
            }
        }
    }

    /// The trilinear blend of each pixel's cell corners, mixed by `amount` and clamped.
    private func interpolate(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>,
                             _ b: UnsafeMutablePointer<Float>, count: Int, fractions: UnsafePointer<Float>,
                             cells: UnsafePointer<Int32>, amount a: Float) {
        let s = size
        let dr = 3, dg = s * 3, db = s * s * 3
        let mixAmount = SIMD4<Float>(repeating: a)
        padded.withUnsafeBufferPointer { buffer in
            guard let t = buffer.baseAddress else { return }
            let raw = UnsafeRawPointer(t)
            @inline(__always) func corner(_ offset: Int) -> SIMD4<Float> {
                raw.loadUnaligned(fromByteOffset: offset * 4, as: SIMD4<Float>.self)
            }
            for x in 0..<count {
                let fr = SIMD4<Float>(repeating: fractions[x])
                let fg = SIMD4<Float>(repeating: fractions[count + x])
                let fb = SIMD4<Float>(repeating: fractions[2 * count + x])
                let p = Int(cells[x])
                let c000 = corner(p), c100 = corner(p + dr), c010 = corner(p + dg), c110 = corner(p + dg + dr)
                let c001 = corner(p + db), c101 = corner(p + db + dr), c011 = corner(p + db + dg), c111 = corner(p + db + dg + dr)
                let c00 = c000 + (c100 - c000) * fr
                let c10 = c010 + (c110 - c010) * fr
                let c01 = c001 + (c101 - c001) * fr
                let c11 = c011 + (c111 - c011) * fr
                let c0 = c00 + (c10 - c00) * fg
                let c1 = c01 + (c11 - c01) * fg
                let looked = c0 + (c1 - c0) * fb
                let v = SIMD4<Float>(r[x], g[x], b[x], 0)
                let blended = v + (looked - v) * mixAmount
                r[x] = blended[0]
                g[x] = blended[1]
                b[x] = blended[2]
            }
        }
        // Clamped in a loop of its own, which the compiler vectorises: per pixel, the
        // clamps were branches that mispredicted whenever the look pushed a channel past 0 or 1.
        for x in 0..<count {
            r[x] = clampUnit(r[x])
            g[x] = clampUnit(g[x])
            b[x] = clampUnit(b[x])
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
