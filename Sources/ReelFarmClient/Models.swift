import FarmCodes
import Foundation

/// Where a job is (docs/api.md, `JobStatus.state`).
public enum JobState: String, Codable, Sendable, CaseIterable {
    case queued, rendering, assembling, done, failed, cancelled

    /// The job is over: its status will not change again.
    public var isFinal: Bool { self == .done || self == .failed || self == .cancelled }
}

/// A job's shards by state.
public struct ShardCounts: Codable, Sendable, Equatable {
    public var queued: Int
    public var running: Int
    public var done: Int
    public var abandoned: Int
}

/// A job as the API reports it (docs/api.yaml, `JobStatus`): the fields an app acts on.
public struct JobStatus: Codable, Sendable, Equatable {
    public var jobID: String
    public var state: JobState
    public var priority: Int
    public var framesDone: Int
    public var totalFrames: Int
    public var shards: ShardCounts
    /// Unix seconds.
    public var created: Double
    public var finished: Double?
    /// While rendering: frames of finished shards per second over the last 10 s, and the
    /// seconds left at that rate.
    public var framesPerSecond: Double?
    public var etaSeconds: Double?
    /// A failed job's reason, and its code.
    public var error: String?
    public var errorCode: FarmErrorCode?
    public var owner: String?
    public var batch: String?
    public var variant: String?

    /// Frames done over the total, 0 … 1.
    public var fractionDone: Double { totalFrames > 0 ? Double(framesDone) / Double(totalFrames) : 0 }
}

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

/// One problem with a submission, at its JSON path (`video.videoSegments[0].trimDuration`).
public struct Problem: Codable, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public var description: String { "\(path): \(message)" }
}

/// One variant of a batch: a name, and the sources it replaces (reference → reference).
public struct Variant: Codable, Sendable, Equatable {
    public var name: String
    public var replace: [String: String]

    public init(name: String, replace: [String: String]) {
        self.name = name
        self.replace = replace
    }
}

/// A batch as the API reports it: its variants' jobs in order (each names its `variant`).
public struct BatchStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        /// `partial`: every variant ended, some not done.
        case rendering, done, partial, failed
    }

    public var batchID: String
    public var state: State
    public var framesDone: Int
    public var totalFrames: Int
    public var variants: [JobStatus]
}

/// A picture of a segment (`thumbnail`: fit into a small box; `frame`: as the video shows it).
public enum PictureKind: String, Sendable { case thumbnail, frame }

public enum PictureFormat: String, Sendable { case jpeg, png }
