/// The high-dynamic-range transfers a source may be tagged with (docs/rendering.md, "HDR
/// sources"): such pictures are made SDR BT.709 before the filters.
public enum HDRTransfer: String, Sendable, Codable, Hashable {
    /// Hybrid log-gamma (ARIB STD-B67, BT.2100): what phones record.
    case hlg
    /// Perceptual quantiser (SMPTE ST 2084, BT.2100).
    case pq

    /// From libavutil's transfer name (`arib-std-b67`, `smpte2084`); `nil` for SDR.
    public init?(transferName: String?) {
        switch transferName {
        case "arib-std-b67": self = .hlg
        case "smpte2084": self = .pq
        default: return nil
        }
    }

    /// What the engine does to such a source, for `reel inspect` and the sidecar.
    public var conversion: String {
        switch self {
        case .hlg: "HLG BT.2020 → SDR BT.709 (inverse OETF, 1000 cd/m² display OOTF, 100 cd/m² white, primaries, "
            + "clipped at white, gamma 2.4)"
        case .pq: "PQ BT.2020 → SDR BT.709 (100 cd/m² white, primaries, Möbius roll-off above 0.3 to a 1000 cd/m² peak, gamma 2.4)"
        }
    }
}

extension MediaInfo {
    /// The source's HDR transfer, if it has one.
    public var hdrTransfer: HDRTransfer? { HDRTransfer(transferName: colorTransfer) }
}
