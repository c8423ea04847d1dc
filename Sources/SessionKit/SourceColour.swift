/// How the engine reads a source's Y′CbCr (docs/rendering.md, "Colour conversion"): the
/// matrix and the chroma siting the stream declares, or what players assume when it
/// declares none. Pure values; the engine maps them to its conversions.
public struct SourceColour: Hashable, Sendable {
    /// The Y′CbCr matrix, by its luma weights.
    public enum Matrix: String, Hashable, Sendable, CaseIterable {
        case bt709, bt601, bt2020, fcc, smpte240m

        /// (Kr, Kb): the red and blue luma weights (ITU-R BT.709, BT.601, BT.2020; FCC 73.682; SMPTE 240M).
        public var lumaWeights: (red: Double, blue: Double) {
            switch self {
            case .bt709: (0.2126, 0.0722)
            case .bt601: (0.299, 0.114)
            case .bt2020: (0.2627, 0.0593)
            case .fcc: (0.30, 0.11)
            case .smpte240m: (0.212, 0.087)
            }
        }

        /// From libavutil's colour-space name; nil for untagged or unknown.
        public init?(tag: String?) {
            switch tag {
            case "bt709": self = .bt709
            case "smpte170m", "bt470bg": self = .bt601
            case "bt2020nc", "bt2020c": self = .bt2020
            case "fcc": self = .fcc
            case "smpte240m": self = .smpte240m
            default: return nil
            }
        }
    }

    /// Where chroma samples sit against luma (H.273 chroma_sample_loc_type).
    public enum Siting: String, Hashable, Sendable {
        /// Co-sited with even luma columns, midway between rows (H.264/HEVC, MPEG-2 4:2:0).
        case left
        /// Midway between columns and rows (MPEG-1, JPEG).
        case center
        /// Co-sited with even columns and even rows (BT.601 4:2:2 practice, DV, some HEVC).
        case topLeft = "topleft"

        /// From libavutil's chroma-location name; nil for unspecified or a siting not handled.
        public init?(tag: String?) {
            switch tag {
            case "left": self = .left
            case "center": self = .center
            case "topleft": self = .topLeft
            default: return nil
            }
        }
    }

    public var matrix: Matrix
    /// True when the stream declares no matrix and `matrix` is the players' guess.
    public var matrixAssumed: Bool
    public var siting: Siting
    /// True when the stream declares no chroma location.
    public var sitingAssumed: Bool

    /// Untagged pictures up to this many lines are read as BT.601 (standard definition),
    /// taller ones as BT.709, as mpv and browsers guess.
    public static let standardDefinitionLines = 576

    /// The reading of a stream with these tags and this many coded lines. A stream without
    /// a chroma location is read as H.264 and HEVC define their default (left), JPEG and
    /// MJPEG pictures (full-range `yuvj` formats) as JPEG defines it (center).
    public init(matrixTag: String?, chromaLocationTag: String?, codedHeight: Int, isJPEG: Bool = false) {
        if let tagged = Matrix(tag: matrixTag) {
            matrix = tagged
            matrixAssumed = false
        } else {
            matrix = codedHeight <= Self.standardDefinitionLines ? .bt601 : .bt709
            matrixAssumed = true
        }
        if let declared = Siting(tag: chromaLocationTag) {
            siting = declared
            sitingAssumed = false
        } else {
            siting = isJPEG ? .center : .left
            sitingAssumed = true
        }
    }

    /// `bt601 (assumed)`, `bt709`: what `reel inspect` shows.
    public var matrixDescription: String { matrix.rawValue + (matrixAssumed ? " (assumed)" : "") }
    public var sitingDescription: String { siting.rawValue + (sitingAssumed ? " (assumed)" : "") }
}

extension MediaInfo {
    /// How the engine reads this source's Y′CbCr.
    public var sourceColour: SourceColour {
        SourceColour(matrixTag: colorMatrix, chromaLocationTag: chromaLocation, codedHeight: codedHeight,
                     isJPEG: codec == "mjpeg")
    }
}
