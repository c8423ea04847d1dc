import Foundation
import RenderEngine
import SessionKit

// The messages between a worker and the coordinator (docs/protocol.md, "Worker ⇄ coordinator").

public struct Hello: Codable, Sendable {
    public var workerID: String
    public var host: String
    public var slots: Int
    public var capabilities: [String]
    public var engineVersion: String
    /// Codec → the fingerprint of this machine's encoder (`EncoderFingerprint`).
    public var encoders: [String: String]?
    /// The pools it serves (`reel worker --pool`; absent: none): a job of a pool renders
    /// only on that pool's workers (docs/operations.md, "Pools").
    public var pools: [String]?

    public init(workerID: String, host: String, slots: Int, capabilities: [String], engineVersion: String,
                encoders: [String: String]? = nil, pools: [String]? = nil) {
        self.workerID = workerID
        self.host = host
        self.slots = slots
        self.capabilities = capabilities
        self.engineVersion = engineVersion
        self.encoders = encoders
        self.pools = pools
    }
}

/// A running attempt's frames encoded so far.
public struct AttemptFrames: Codable, Sendable, Equatable {
    public var jobID: String
    public var shard: Int
    public var attempt: Int
    public var frames: Int

    public var attemptID: AttemptID { AttemptID(jobID: jobID, shard: shard, attempt: attempt) }
}

public struct Welcome: Codable, Sendable {
    public var heartbeatMillis: Int
}

public struct Heartbeat: Codable, Sendable {
    public var busy: Int
    /// A worker that is shutting down: it takes no more work (absent = false).
    public var draining: Bool?
    /// The worker's resident memory (kB), for `reel workers` and the dashboard.
    public var residentKB: Int?
    /// The CPU time the worker's process has used since it started (user + system, s): the
    /// coordinator makes a rate of it (absent from workers before 0.9).
    public var cpuSeconds: Double?
    /// Frames each running attempt has encoded so far (absent: none yet, or an older
    /// worker): the coordinator's measure of a straggler's pace.
    public var framesDone: [AttemptFrames]?
    public init(busy: Int, draining: Bool? = nil, residentKB: Int? = nil, cpuSeconds: Double? = nil) {
        self.busy = busy
        self.draining = draining
        self.residentKB = residentKB
        self.cpuSeconds = cpuSeconds
    }
}

/// One attempt at one task of a job: the task's compiled spec and where the coordinator
/// reads its files (docs/protocol.md, "Worker ⇄ coordinator").
public struct ShardAssignment: Codable, Sendable {
    public var jobID: String
    public var shard: Int
    public var attempt: Int
    /// Everything the task needs, naming only its own files.
    public var spec: ShardSpec
    /// Where the coordinator reads each of the spec's files: a worker on a shared
    /// filesystem may read it there when the content id matches, instead of fetching it.
    public var paths: [String: String]
    /// Size and modification time of each path the coordinator verified against its
    /// content id: a worker that sees the same at the same path reads it without hashing it.
    public var pathStats: [String: FileStat]

    public init(jobID: String, shard: Int, attempt: Int, spec: ShardSpec, paths: [String: String] = [:],
                pathStats: [String: FileStat] = [:]) {
        self.jobID = jobID
        self.shard = shard
        self.attempt = attempt
        self.spec = spec
        self.paths = paths
        self.pathStats = pathStats
    }
}

extension ShardAssignment { public var attemptID: AttemptID { AttemptID(jobID: jobID, shard: shard, attempt: attempt) } }
extension ChunkReady { public var attemptID: AttemptID { AttemptID(jobID: jobID, shard: shard, attempt: attempt) } }
extension ShardFailed { public var attemptID: AttemptID { AttemptID(jobID: jobID, shard: shard, attempt: attempt) } }

/// A file's size and modification time (seconds since 1970), as `stat` reports them.
public struct FileStat: Codable, Sendable, Equatable {
    public var size: Int64
    public var mtime: Double

    public init(size: Int64, mtime: Double) {
        self.size = size
        self.mtime = mtime
    }

    /// The stat of a regular file at `path`, if there is one.
    public static func of(_ path: String) -> FileStat? {
        LoopGuard.assertMayBlock("stat of \(path)")
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let size = (attributes[.size] as? NSNumber)?.int64Value,
              let mtime = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 else { return nil }
        return FileStat(size: size, mtime: mtime)
    }
}

public struct ChunkReady: Codable, Sendable {
    public var jobID: String
    public var shard: Int
    public var attempt: Int
    /// SHA-256 (hex) of the chunk's bytes before compression.
    public var sha256: String
    public var size: Int
    public var millis: Int
    /// The worker's peak resident memory so far (kB), for `reel render --json` and benchmarks.
    public var peakRSSKB: Int?

    public init(jobID: String, shard: Int, attempt: Int, sha256: String, size: Int, millis: Int) {
        self.jobID = jobID
        self.shard = shard
        self.attempt = attempt
        self.sha256 = sha256
        self.size = size
        self.millis = millis
    }
}

public struct ShardFailed: Codable, Sendable {
    public var jobID: String
    public var shard: Int
    public var attempt: Int
    /// `handedBack` is a draining worker's shard given back unfinished: queued again, not
    /// counted as a failure; `cancelled` a render stopped on the coordinator's word.
    public var code: FarmErrorCode
    public var reason: String

    public init(jobID: String, shard: Int, attempt: Int, code: FarmErrorCode, reason: String) {
        self.jobID = jobID
        self.shard = shard
        self.attempt = attempt
        self.code = code
        self.reason = reason
    }
}

public struct MediaRequest: Codable, Sendable {
    public var contentID: String
    public var offset: Int
    public var length: Int
}

public struct MediaBlock: Codable, Sendable {
    public var contentID: String
    public var offset: Int
    public var total: Int
    public var missing: Bool
    /// The coordinator holds the file but could not read it: the work that needs it fails
    /// with this error.
    public var error: FarmError? = nil
}

public struct CancelShard: Codable, Sendable {
    public var jobID: String
    public var shard: Int
}
