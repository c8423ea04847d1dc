/// GPUImage `LookupFilter`, slider 0 … 100 → a in 0 … 1 (default 1), with the image named
/// by the filter's `image`: 512×512, 8×8 tiles of 64×64. Blue picks two tiles
/// (interpolated between them), red and green pick a pixel inside each tile, sampled
/// nearest as the Metal shader does.
public enum Lookup {
    public static let definition = FilterDefinition(
        type: "lookup", className: "SessionFilterLookup", category: .primary,
        slider: .percent(0, 1, default: 1), input: .fileField("image", .lookupImage),
        formula: "bc = 63b; tiles ⌊bc⌋, ⌈bc⌉; in a tile x = round(63r), y = round(63g); "
            + "mix(rgb, mix(tile1, tile2, fract(bc)), a)"
    ) { a, filter in
        guard a != 0, let image = filter.image else { return [] }
        return [.asset(FilterAsset(kind: .lookupImage, reference: image), amount: Float(a))]
    }

    /// The blend of a lookup image into a picture.
    public struct Operation: PixelOperation {
        public let table: LookupTable
        public let amount: Float

        public init(table: LookupTable, amount: Float) {
            self.table = table
            self.amount = amount
        }

        public func apply(_ row: PixelRow) {
            let a = amount
            table.values.withUnsafeBufferPointer { t in
                for x in 0..<row.count {
                    let r = row.r[x], g = row.g[x], b = row.b[x]
                    let bc = clampUnit(b) * 63
                    let q1 = Int(bc), q2 = min(q1 + (bc > Float(q1) ? 1 : 0), 63)
                    let f = bc - Float(q1)
                    let px = Int(clampUnit(r) * 63 + 0.5), py = Int(clampUnit(g) * 63 + 0.5)
                    let i1 = LookupTable.offset(tile: q1, x: px, y: py), i2 = LookupTable.offset(tile: q2, x: px, y: py)
                    let nr = mix(t[i1], t[i2], f), ng = mix(t[i1 + 1], t[i2 + 1], f), nb = mix(t[i1 + 2], t[i2 + 2], f)
                    row.r[x] = clampUnit(mix(r, nr, a))
                    row.g[x] = clampUnit(mix(g, ng, a))
                    row.b[x] = clampUnit(mix(b, nb, a))
                }
            }
        }
    }
}

/// A 512×512 lookup image as RGB floats in [0, 1], row-major from the top.
public struct LookupTable: Sendable, Hashable {
    public static let side = 512
    public let values: [Float]

    /// `rgb`: 512×512×3 bytes.
    public init(rgb: [UInt8]) throws(LookupTableError) {
        guard rgb.count == Self.side * Self.side * 3 else {
            throw LookupTableError("expected 512×512 RGB values, found \(rgb.count / 3) pixels")
        }
        values = rgb.map { Float($0) / 255 }
    }

    /// Index of the red value of pixel (x, y) of tile `tile` (column tile mod 8, row tile / 8).
    @inline(__always)
    public static func offset(tile: Int, x: Int, y: Int) -> Int {
        let px = (tile & 7) * 64 + x, py = (tile >> 3) * 64 + y
        return (py * side + px) * 3
    }

    /// The image that leaves every colour where it is (to quantisation).
    public static func identityRGB() -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: side * side * 3)
        for tile in 0..<64 {
            for y in 0..<64 {
                for x in 0..<64 {
                    let i = offset(tile: tile, x: x, y: y)
                    rgb[i] = UInt8((Double(x) * 255 / 63).rounded())
                    rgb[i + 1] = UInt8((Double(y) * 255 / 63).rounded())
                    rgb[i + 2] = UInt8((Double(tile) * 255 / 63).rounded())
                }
            }
        }
        return rgb
    }
}

public struct LookupTableError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
