import Foundation
import RenderEngine
import SessionKit

/// The farm's wire protocol (docs/protocol.md): every message is a JSON header frame
/// `{"v": 2, "type": "...", "body": {...}}` followed by zero or more binary payload frames.
public enum WireProtocol {
    /// `REEL_TEST_PROTOCOL_VERSION` overrides it, only so tests can play a peer of another version.
    public static let version = Int(ProcessInfo.processInfo.environment["REEL_TEST_PROTOCOL_VERSION"] ?? "") ?? 3
    /// Media and results travel in blocks well under libzmq's message limits.
    public static let blockSize = 4 << 20
}

/// One decoded message: its type, its body and its payload frames.
public struct WireMessage: Sendable {
    public var type: MessageType
    /// The whole header frame: `{"v":VERSION,"type":"…","body":{…}}`, compact JSON.
    private var headerFrame: Data
    public var payload: [Data]

    public init<Body: Encodable>(_ type: MessageType, _ body: Body, payload: [Data] = []) throws {
        self.type = type
        // The body is encoded once and spliced into the header: no re-serialisation.
        var frame = Data(#"{"v":\#(WireProtocol.version),"type":"\#(type.rawValue)","body":"#.utf8)
        frame.append(try JSONEncoder().encode(body))
        frame.append(UInt8(ascii: "}"))
        headerFrame = frame
        self.payload = payload
    }

    private struct Envelope: Decodable {
        var v: Int?
        var type: String?
    }

    private struct Enveloped<Body: Decodable>: Decodable {
        var body: Body
    }

    public func decode<Body: Decodable>(_ type: Body.Type) throws -> Body {
        do {
            return try JSONDecoder().decode(Enveloped<Body>.self, from: headerFrame).body
        } catch {
            throw FarmError(.malformed, "malformed \(self.type.rawValue) message: \(error)")
        }
    }

    /// The header frame.
    public func header() -> Data { headerFrame }

    /// Parses `[header, payload...]`; a peer speaking another version gets a clear error.
    public static func parse(_ frames: [Data]) throws -> WireMessage {
        guard let first = frames.first, let envelope = try? JSONDecoder().decode(Envelope.self, from: first) else {
            throw FarmError(.malformed, "not a ReelFarm message (no JSON header)")
        }
        guard let version = envelope.v else { throw FarmError(.malformed, "not a ReelFarm message (no protocol version)") }
        guard version == WireProtocol.version else { throw versionMismatch(theirs: version) }
        guard let typeName = envelope.type, let type = MessageType(rawValue: typeName) else {
            throw FarmError(.malformed, "unknown message type \(envelope.type ?? "nil")")
        }
        return WireMessage(type: type, headerFrame: first, payload: Array(frames.dropFirst()))
    }

    private init(type: MessageType, headerFrame: Data, payload: [Data]) {
        self.type = type
        self.headerFrame = headerFrame
        self.payload = payload
    }

    public var frames: [ZMQSocket.Frame] {
        [.bytes(headerFrame)] + payload.map { .bytes($0) }
    }
}

/// A peer of another protocol version: refused with a message that says what to do.
func versionMismatch(theirs: Int) -> FarmError {
    FarmError(.versionMismatch, "protocol version mismatch: peer speaks version \(theirs), this reel speaks version "
        + "\(WireProtocol.version); run the same reel release on the coordinator and its workers and clients")
}

public enum MessageType: String, Codable, Sendable {
    // worker ⇄ coordinator
    case hello, welcome, heartbeat, shard, chunk, failed, mediaRequest, mediaBlock, cancelShard
    // client ⇄ coordinator
    case submit, submitted, upload, uploaded, status, statusReply, watch, progress, cancel, fetch, resultBlock,
         workers, workersReply, deleteResult, shards, shardsReply, mediaQuery, mediaState, setPriority, jobStills
    // thumbnails and frames: client → coordinator → worker and back; invalidation to every worker
    case stills, stillsReply, invalidate, invalidated
    // either way
    case refused, error
}

public struct Empty: Codable, Sendable {
    public init() {}
}

public struct Hello: Codable, Sendable {
    public var workerID: String
    public var host: String
    public var slots: Int
    public var capabilities: [String]
    public var engineVersion: String
    /// Codec → the fingerprint of this machine's encoder (`EncoderFingerprint`).
    public var encoders: [String: String]?

    public init(workerID: String, host: String, slots: Int, capabilities: [String], engineVersion: String,
                encoders: [String: String]? = nil) {
        self.workerID = workerID
        self.host = host
        self.slots = slots
        self.capabilities = capabilities
        self.engineVersion = engineVersion
        self.encoders = encoders
    }
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
    public init(busy: Int, draining: Bool? = nil, residentKB: Int? = nil) {
        self.busy = busy
        self.draining = draining
        self.residentKB = residentKB
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

public struct Submit: Codable, Sendable {
    public var session: String
    public var files: [String: String]
    /// Paths the submitting client can read: used when the coordinator can read them too.
    public var paths: [String: String]
    public var settings: EncoderSettings
    public var priority: Int
    /// `segments`: one file per segment (absent = `whole`).
    public var layout: Plan.Layout? = nil
    /// Whom the job is for, when an admin submits on someone's behalf (the HTTP API's
    /// token holders); ignored from any other key.
    public var owner: String? = nil
    /// A URL told when the job ends (docs/api.md, "Webhooks").
    public var callback: String? = nil

    public init(session: String, files: [String: String], paths: [String: String], settings: EncoderSettings, priority: Int,
                layout: Plan.Layout? = nil, owner: String? = nil, callback: String? = nil) {
        self.callback = callback
        self.session = session
        self.files = files
        self.paths = paths
        self.settings = settings
        self.priority = priority
        self.layout = layout
        self.owner = owner
    }
}

public struct Submitted: Codable, Sendable {
    public var jobID: String?
    /// Content ids the coordinator does not have: upload them and submit again.
    public var missing: [String]
    /// Validation problems (`path: message`); the job was not created.
    public var problems: [String]
    /// Shards whose chunks came from the coordinator's chunk cache, of all the job's.
    public var reused: Int? = nil
    public var shards: Int? = nil
}

public struct Upload: Codable, Sendable {
    public var contentID: String
    public var offset: Int
    public var total: Int
}

public struct Uploaded: Codable, Sendable {
    public var contentID: String
    public var received: Int
    public var complete: Bool
}

/// One job's status (`jobID`), or a page of the job list, newest first.
public struct StatusRequest: Codable, Sendable {
    public var jobID: String?
    /// Only this owner's jobs (the HTTP API asks so for a client token).
    public var owner: String? = nil
    /// Jobs in the page: 1 … 1000 (default 100).
    public var limit: Int? = nil
    /// The `next` cursor of the previous page.
    public var after: String? = nil

    public init(jobID: String? = nil, owner: String? = nil, limit: Int? = nil, after: String? = nil) {
        self.jobID = jobID
        self.owner = owner
        self.limit = limit
        self.after = after
    }
}

public struct JobStatus: Codable, Sendable, Equatable {
    public var jobID: String
    public var state: JobPhase
    public var priority: Int
    public var framesDone: Int64
    public var totalFrames: Int64
    public var shards: [String: Int]
    public var error: String?
    public var created: Double
    public var finished: Double?
    /// Shards rendered per worker id.
    public var workers: [String: Int]
    /// Seconds the coordinator spent joining chunks and muxing (once assembled; not kept
    /// across coordinator restarts).
    public var assemblySeconds: Double?
    /// Highest resident memory a worker reported while rendering this job's shards (kB).
    public var workerPeakRSSKB: Int?
    /// Why the coordinator is not handing out this job's shards right now (a full disk, a
    /// store that cannot write), while it is so.
    public var paused: String?
    /// Media bytes sent to workers for this job (since the coordinator started).
    public var mediaBytesSent: Int64? = nil
    /// Who submitted it: a client's CURVE key, `token:NAME` for the HTTP API, or `nil`.
    public var owner: String? = nil
    /// Its webhook's delivery, once the job has ended with a callback.
    public var webhook: WebhookStatus? = nil
    /// While it renders: frames of its finished shards per second over the last 10 s, and
    /// the seconds left at that rate (absent until the rate is known).
    public var framesPerSecond: Double? = nil
    public var etaSeconds: Double? = nil

    public var isFinal: Bool { state.isFinal }
}

public struct StatusReply: Codable, Sendable {
    public var jobs: [JobStatus]
    /// Bytes under the coordinator's state directory (measured at most every 10 s).
    public var stateBytes: Int64? = nil
    /// A full page of the list: the cursor of the next (`StatusRequest.after`).
    public var next: String? = nil
}

public struct JobRequest: Codable, Sendable {
    public var jobID: String
}

public struct FetchRequest: Codable, Sendable {
    public var jobID: String
    public var offset: Int
    public var length: Int
    /// `output` or `sidecar` of a whole job; `files` (the payload is the JSON list of a
    /// per-segment job's file names, empty for a whole job); `file:NAME` for one of them.
    public var part: String
}

public struct ResultBlock: Codable, Sendable {
    public var offset: Int
    public var total: Int
}

public struct WorkerStatus: Codable, Sendable {
    public var workerID: String
    public var host: String
    public var slots: Int
    public var busy: Int
    public var shardsDone: Int
    public var lastHeartbeat: Double
    public var alive: Bool
    /// Media bytes the coordinator sent it (since the coordinator started).
    public var mediaBytesSent: Int64? = nil
    /// Resident memory it last reported (kB).
    public var residentKB: Int? = nil
    /// Frames of the shards it finished, per second over the last 10 s.
    public var framesPerSecond: Double? = nil
}

/// Thumbnails or frames of a submitted job's segments: its stored session and media
/// (`GET /v1/jobs/{id}/segments/{i}/thumbnail`). Answered with `stillsReply`.
public struct JobStillsRequest: Codable, Sendable {
    public var jobID: String
    public var stills: [StillRequest]

    public init(jobID: String, stills: [StillRequest]) {
        self.jobID = jobID
        self.stills = stills
    }
}

/// A new priority for an unfinished job (higher first; −1000…1000).
public struct SetPriority: Codable, Sendable {
    public var jobID: String
    public var priority: Int
}

/// Whether the coordinator holds a media file (`HEAD /v1/media/{contentID}`).
public struct MediaQuery: Codable, Sendable {
    public var contentID: String
}

public struct MediaState: Codable, Sendable {
    public var contentID: String
    public var present: Bool
}

/// One shard of a job as the dashboard's shard map shows it (docs/api.md).
public struct ShardInfo: Codable, Sendable, Equatable {
    public var index: Int
    public var kind: ShardTask.Kind
    public var segment: Int
    /// Output frames `[outputStartFrame, outputStartFrame + frames)`.
    public var outputStartFrame: Int64
    public var frames: Int64
    public var state: ShardState
    /// Who rendered it (`reused` for the chunk cache), or who holds it now.
    public var worker: String?
    public var attempts: Int
    /// Seconds of its last attempt (so far, while it runs).
    public var seconds: Double?
    /// The last failed attempt's message.
    public var lastError: String?
}

public struct ShardsReply: Codable, Sendable {
    public var shards: [ShardInfo]
}

public struct WorkersReply: Codable, Sendable {
    public var workers: [WorkerStatus]
}

/// Thumbnails or frames of a one-segment still session (`Session.stillSession`).
public struct StillsRequest: Codable, Sendable {
    /// The client's id, echoed in the reply; the coordinator uses its own towards workers.
    public var requestID: String
    public var session: String
    public var files: [String: String]
    public var paths: [String: String]
    public var stills: [StillRequest]
}

/// One payload frame per picture, in request order, unless `invalid`, `error` or `missing`.
public struct StillsReply: Codable, Sendable {
    public var requestID: String
    public var worker: String
    public var results: [StillResult]
    /// The request cannot be served (bad time, size…): invalid input.
    public var invalid: String?
    /// Serving failed on the worker.
    public var error: String?
    /// Content ids the coordinator lacks: upload them and ask again.
    public var missing: [String]
}

public struct InvalidateRequest: Codable, Sendable {
    public var contentIDs: [String]
}

public struct Invalidated: Codable, Sendable {
    /// Pictures removed (from the local side: the coordinator counts the workers told).
    public var removed: Int
}
