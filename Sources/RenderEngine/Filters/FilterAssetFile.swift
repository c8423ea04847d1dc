import Foundation
import SessionKit

/// A file a filter reads, loaded and checked once per session (docs/filters.md).
public enum FilterAssetFile: Sendable {
    case lookup(LookupImageFile.Loaded)
    case cube(CubeLUT)

    public static func load(_ kind: FilterAsset.Kind, from url: URL) throws -> FilterAssetFile {
        switch kind {
        case .lookupImage: return .lookup(try LookupImageFile.load(url))
        case .cube: return .cube(try CubeLUT(contentsOf: url))
        }
    }

    /// The stage that blends this file into a picture.
    func operation(amount: Float) -> any PixelOperation {
        switch self {
        case .lookup(let loaded): return Lookup.Operation(table: loaded.table, amount: amount)
        case .cube(let lut): return CubeLUT.Operation(lut: lut, amount: amount)
        }
    }
}

extension CubeLUT {
    /// `mix(rgb, lut3d(rgb), amount)` over a row.
    struct Operation: PixelOperation {
        let lut: CubeLUT
        let amount: Float
        func apply(_ row: PixelRow) { lut.blend(row.r, row.g, row.b, count: row.count, amount: amount) }
    }
}
