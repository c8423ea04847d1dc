// The wire contract (job and batch statuses, error codes, problems) is FarmWire's: the
// farm encodes and this client decodes one definition, and an app that imports
// ReelFarmClient sees it too.
@_exported import FarmWire
import Foundation

/// How the farm encodes the export (docs/api.md, "Submitting"): nil leaves the farm's default.
public struct ExportSettings: Codable, Sendable, Equatable {
    public enum Codec: String, Codable, Sendable { case h264, hevc }

    public var crf: Int?
    public var preset: String?
    public var keyframeIntervalSeconds: Double?
    public var audioBitRate: Int?
    public var codec: Codec?

    public init(crf: Int? = nil, preset: String? = nil, keyframeIntervalSeconds: Double? = nil, audioBitRate: Int? = nil,
                codec: Codec? = nil) {
        self.crf = crf
        self.preset = preset
        self.keyframeIntervalSeconds = keyframeIntervalSeconds
        self.audioBitRate = audioBitRate
        self.codec = codec
    }
}

/// A picture of a segment (`thumbnail`: fit into a small box; `frame`: as the video shows it).
public enum PictureKind: String, Sendable { case thumbnail, frame }

public enum PictureFormat: String, Sendable { case jpeg, png }
