import SessionKit
import Testing
@testable import RenderEngine

/// The engine's fixed-point Y′CbCr → RGB against the conversion written out in doubles
/// from the matrix's Kr and Kb, with chroma interpolated where each siting puts it: within
/// one code value.
@Suite struct YUVToRGBTests {
    struct Planes {
        var width: Int, height: Int
        var y: [UInt8], cb: [UInt8], cr: [UInt8]
        var chromaWidth: Int { (width + 1) / 2 }
        var chromaHeight: Int { (height + 1) / 2 }
    }

    /// Smooth ramps plus a fixed pseudo-random texture, covering the whole code range.
    static func planes(width: Int, height: Int) -> Planes {
        var state: UInt32 = 12345
        func noise() -> Int {
            state = state &* 1_103_515_245 &+ 12345
            return Int(state >> 27) - 16
        }
        func clamp(_ v: Int) -> UInt8 { UInt8(min(max(v, 0), 255)) }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let y = (0..<(width * height)).map { i in clamp((i % width) * 255 / max(width - 1, 1) + noise()) }
        let cb = (0..<(cw * ch)).map { i in clamp((i / cw) * 255 / max(ch - 1, 1) + noise()) }
        let cr = (0..<(cw * ch)).map { i in clamp(255 - (i % cw) * 255 / max(cw - 1, 1) + noise()) }
        return Planes(width: width, height: height, y: y, cb: cb, cr: cr)
    }

    /// The definition: chroma sited as `siting` says, bilinear interpolation, Kr/Kb matrix, rounded.
    static func model(_ p: Planes, kr: Double, kb: Double, fullRange: Bool, siting: SourceColour.Siting = .left) -> [UInt8] {
        let kg = 1 - kr - kb
        var out: [UInt8] = []
        func chroma(_ plane: [UInt8], _ x: Int, _ y: Int) -> Double {
            // Position in chroma samples. Left: x/2 across, (y − ½)/2 down; center: (x − ½)/2
            // across; top-left: y/2 down.
            let cx = siting == .center ? (Double(x) - 0.5) / 2 : Double(x) / 2
            let cy = siting == .topLeft ? Double(y) / 2 : (Double(y) - 0.5) / 2
            func at(_ i: Int, _ j: Int) -> Double {
                Double(plane[min(max(j, 0), p.chromaHeight - 1) * p.chromaWidth + min(max(i, 0), p.chromaWidth - 1)])
            }
            let i0 = Int(cx.rounded(.down)), j0 = Int(cy.rounded(.down))
            let fx = cx - Double(i0), fy = cy - Double(j0)
            let top = at(i0, j0) * (1 - fx) + at(i0 + 1, j0) * fx
            let bottom = at(i0, j0 + 1) * (1 - fx) + at(i0 + 1, j0 + 1) * fx
            return top * (1 - fy) + bottom * fy
        }
        for y in 0..<p.height {
            for x in 0..<p.width {
                let luma = Double(p.y[y * p.width + x])
                let l = fullRange ? luma : (luma - 16) * 255 / 219
                let scale = fullRange ? 1.0 : 255.0 / 224
                let b = (chroma(p.cb, x, y) - 128) * scale, r = (chroma(p.cr, x, y) - 128) * scale
                let rgb = [l + 2 * (1 - kr) * r, l - 2 * kb * (1 - kb) / kg * b - 2 * kr * (1 - kr) / kg * r, l + 2 * (1 - kb) * b]
                out += rgb.map { UInt8(min(max($0.rounded(), 0), 255)) }
            }
        }
        return out
    }

    static func convert(_ p: Planes, matrix: SourceColour.Matrix, fullRange: Bool, siting: SourceColour.Siting) -> [UInt8] {
        var colour = SourceColour(matrixTag: nil, chromaLocationTag: siting.rawValue, codedHeight: p.height)
        colour.matrix = matrix
        let converter = YUVToRGB(colour, fullRange: fullRange)
        var out = [UInt8](repeating: 0, count: p.width * p.height * 3)
        p.y.withUnsafeBufferPointer { y in
            p.cb.withUnsafeBufferPointer { cb in
                p.cr.withUnsafeBufferPointer { cr in
                    out.withUnsafeMutableBufferPointer { o in
                        converter.convert(y: y.baseAddress!, yStride: p.width, cb: cb.baseAddress!, cr: cr.baseAddress!,
                                          chromaStride: p.chromaWidth, width: p.width, height: p.height,
                                          into: o.baseAddress!, rgbStride: p.width * 3)
                    }
                }
            }
        }
        return out
    }

    @Test(arguments: [(SourceColour.Matrix.bt709, 0.2126, 0.0722), (.bt601, 0.299, 0.114), (.bt2020, 0.2627, 0.0593),
                      (.fcc, 0.30, 0.11), (.smpte240m, 0.212, 0.087)])
    func matchesTheDefinitionWithinOneCodeValue(matrix: SourceColour.Matrix, kr: Double, kb: Double) {
        for (width, height) in [(64, 36), (33, 17)] {
            let p = Self.planes(width: width, height: height)
            for fullRange in [false, true] {
                for siting in [SourceColour.Siting.left, .center, .topLeft] {
                    let engine = Self.convert(p, matrix: matrix, fullRange: fullRange, siting: siting)
                    let expected = Self.model(p, kr: kr, kb: kb, fullRange: fullRange, siting: siting)
                    let worst = zip(engine, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
                    #expect(worst <= 1, "\(matrix) \(siting), \(width)×\(height), full range \(fullRange): off by \(worst)")
                }
            }
        }
    }

    /// RGB → BT.709 limited 4:2:0 against its definition in doubles: luma per pixel, chroma
    /// [1 2 1]/4 across columns 2i−1…2i+1 and [1 3 3 1]/8 over rows 2k−1…2k+2
    /// (edges repeated).
    @Test func rgbToOutputYUVMatchesTheDefinitionWithinOneCodeValue() {
        for (width, height) in [(64, 36), (33, 17)] {
            let p = Self.planes(width: width, height: height)
            // Any RGB picture: the BT.601 full-range reading of the test planes.
            let rgb = Self.model(p, kr: 0.299, kb: 0.114, fullRange: true)
            let cw = (width + 1) / 2, ch = (height + 1) / 2
            var y = [UInt8](repeating: 0, count: width * height)
            var cb = [UInt8](repeating: 0, count: cw * ch), cr = cb
            rgb.withUnsafeBufferPointer { s in
                y.withUnsafeMutableBufferPointer { yp in
                    cb.withUnsafeMutableBufferPointer { bp in
                        cr.withUnsafeMutableBufferPointer { rp in
                            RGBToYUV.convert(rgb: s.baseAddress!, rgbStride: width * 3, width: width, height: height,
                                             y: yp.baseAddress!, yStride: width, cb: bp.baseAddress!, cr: rp.baseAddress!,
                                             chromaStride: cw)
                        }
                    }
                }
            }
            let (kr, kb) = (0.2126, 0.0722), kg = 1 - kr - kb
            func pixel(_ x: Int, _ row: Int) -> (Double, Double, Double) {
                let i = (min(max(row, 0), height - 1) * width + min(max(x, 0), width - 1)) * 3
                return (Double(rgb[i]), Double(rgb[i + 1]), Double(rgb[i + 2]))
            }
            func luma(_ c: (Double, Double, Double)) -> Double { kr * c.0 + kg * c.1 + kb * c.2 }
            var worst = 0
            for row in 0..<height {
                for x in 0..<width {
                    let expected = Int((16 + 219 / 255 * luma(pixel(x, row))).rounded())
                    worst = max(worst, abs(expected - Int(y[row * width + x])))
                }
            }
            for k in 0..<ch {
                for i in 0..<cw {
                    var b = 0.0, r = 0.0
                    for (dx, wx) in [(-1, 1.0), (0, 2), (1, 1)] {
                        for (dy, wy) in [(-1, 1.0), (0, 3), (1, 3), (2, 1)] {
                            let c = pixel(2 * i + dx, 2 * k + dy), w = wx * wy / 32
                            b += w * (c.2 - luma(c)) / (2 * (1 - kb))
                            r += w * (c.0 - luma(c)) / (2 * (1 - kr))
                        }
                    }
                    func code(_ c: Double) -> Int { min(max(Int((128 + 224 / 255 * c).rounded()), 0), 255) }
                    worst = max(worst, abs(code(b) - Int(cb[k * cw + i])), abs(code(r) - Int(cr[k * cw + i])))
                }
            }
            #expect(worst <= 1, "\(width)×\(height): off by \(worst)")
        }
    }
}
