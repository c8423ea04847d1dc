/// One job as the farm reports it, to its own clients (`reel status`) and over HTTP
/// (docs/api.yaml, `JobStatus`): the one definition the coordinator encodes and every
/// client decodes.
public struct JobStatus: Codable, Sendable, Equatable {
    public var jobID: String
    public var state: JobPhase
    /// Orders the job among its owner's own jobs (docs/operations.md, "Tenants").
    public var priority: Int
    /// An admin's farm-wide priority, while the job is unfinished and has one (above 0).
    public var farmPriority: Int?
    public var framesDone: Int64
    public var totalFrames: Int64
    public var shards: ShardCounts
    /// The video shards among `shards` (the rest are pieces of the sound); absent from a
    /// coordinator of an earlier release.
    public var videoShards: ShardCounts?
    /// While it renders: frames its running shards have encoded so far (their workers say
    /// so once a second), beyond `framesDone`, which counts finished shards only.
    public var framesInProgress: Int64?
    /// Why a failed (or cancelled) job ended so: its code and message.
    public var error: FarmError?
    /// Unix seconds.
    public var created: Double
    public var finished: Double?
    /// Shards rendered per worker id.
    public var workers: [String: Int]
    /// Shards that took a chunk rendered before (the chunk cache, or a twin) instead of rendering.
    public var reusedShards: Int
    /// Seconds the coordinator spent joining chunks and muxing (once assembled; not kept
    /// across coordinator restarts).
    public var assemblySeconds: Double?
    /// Highest resident memory a worker reported while rendering this job's shards (kB).
    public var workerPeakRSSKB: Int?
    /// Why the coordinator is not handing out this job's shards right now, while it is so.
    public var paused: DispatchPause?
    /// Media bytes sent to workers for this job (since the coordinator started).
    public var mediaBytesSent: Int64?
    /// Who submitted it: a client's CURVE key, `token:NAME` for the HTTP API, or `nil`.
    public var owner: String?
    /// Its webhook's delivery, once the job has ended with a callback.
    public var webhook: WebhookStatus?
    /// While it renders: frames of its finished shards per second over the last 10 s, and
    /// the seconds left at that rate (absent until the rate is known).
    public var framesPerSecond: Double?
    public var etaSeconds: Double?
    /// Where the result was sent, when the job named a URL (docs/api.md, "Output to a URL").
    public var published: PublishedOutput?
    /// The batch it is a variant of, and the variant's name (docs/api.md, "Batches").
    public var batch: String?
    public var variant: String?
    /// The pool of workers that alone render it, while it is unfinished (docs/operations.md, "Pools").
    public var pool: String?

    public init(jobID: String, state: JobPhase, priority: Int, framesDone: Int64, totalFrames: Int64, shards: ShardCounts,
                error: FarmError? = nil, created: Double, finished: Double? = nil, workers: [String: Int] = [:],
                reusedShards: Int = 0, assemblySeconds: Double? = nil, workerPeakRSSKB: Int? = nil, paused: DispatchPause? = nil,
                mediaBytesSent: Int64? = nil, owner: String? = nil, batch: String? = nil, variant: String? = nil) {
        (self.jobID, self.state, self.priority, self.framesDone, self.totalFrames, self.shards) =
            (jobID, state, priority, framesDone, totalFrames, shards)
        (self.error, self.created, self.finished, self.workers, self.reusedShards) = (error, created, finished, workers, reusedShards)
        (self.assemblySeconds, self.workerPeakRSSKB, self.paused, self.mediaBytesSent) =
            (assemblySeconds, workerPeakRSSKB, paused, mediaBytesSent)
        (self.owner, self.batch, self.variant) = (owner, batch, variant)
    }

    public var isFinal: Bool { state.isFinal }

    /// Frames done over the total, 0 … 1.
    public var fractionDone: Double { totalFrames > 0 ? Double(framesDone) / Double(totalFrames) : 0 }
}

/// Why dispatch holds back a job's shards: each cause that holds, and one line for people.
public struct DispatchPause: Codable, Sendable, Equatable {
    public var causes: [PauseCause]
    public var message: String

    public init(causes: [PauseCause], message: String) {
        (self.causes, self.message) = (causes, message)
    }
}

/// A reason the coordinator stops handing out shards; each is set and cleared by its own
/// watcher (docs/operations.md, "Disks").
public enum PauseCause: String, Codable, Sendable, CaseIterable, Comparable {
    /// The store cannot write (its disk refuses): nothing dispatched could be recorded.
    case storeUnwritable
    /// The state directory's disk is below its floor: chunks could not be stored.
    case diskFull
    /// This job only: no connected worker may take its shards — its pool has none, none
    /// has an encoder that agrees, or all that may are quarantined (docs/operations.md, "Pools").
    case noWorker

    private var order: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (a: PauseCause, b: PauseCause) -> Bool { a.order < b.order }
}

/// Where a webhook's delivery is: due again at its `nextAt`, delivered (never sent
/// again), or given up after an hour of retries. The raw values are the JSON and the store's text.
public enum WebhookState: String, Codable, Sendable, CaseIterable {
    case pending, delivered, failed
}

/// How a job's webhook delivery stands (docs/api.md, "Webhooks").
public struct WebhookStatus: Codable, Equatable, Sendable {
    public var event: String
    public var state: WebhookState
    public var attempts: Int
    public var lastStatus: Int?
    public var lastError: String?
    public var nextAt: Double?
    public var deliveredAt: Double?

    public init(event: String, state: WebhookState, attempts: Int, lastStatus: Int? = nil, lastError: String? = nil,
                nextAt: Double? = nil, deliveredAt: Double? = nil) {
        (self.event, self.state, self.attempts, self.lastStatus) = (event, state, attempts, lastStatus)
        (self.lastError, self.nextAt, self.deliveredAt) = (lastError, nextAt, deliveredAt)
    }
}

/// What was published, as a status may show it: URLs redacted, the MP4's size and digest
/// (an operator compares them with the object stored).
public struct PublishedOutput: Codable, Sendable, Hashable {
    public var url: String
    public var sidecarURL: String?
    public var bytes: Int64
    public var sha256: String
    /// Base64 of the MP4's MD5, as sent in `Content-MD5` (object stores check it on receipt).
    public var contentMD5: String

    public init(url: String, sidecarURL: String?, bytes: Int64, sha256: String, contentMD5: String) {
        (self.url, self.sidecarURL, self.bytes, self.sha256, self.contentMD5) = (url, sidecarURL, bytes, sha256, contentMD5)
    }
}

/// One problem with a request, at its JSON path (`video.videoSegments[0].trimDuration`;
/// `$` for the body as a whole).
public struct Problem: Codable, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        (self.path, self.message) = (path, message)
    }

    public var description: String { "\(path): \(message)" }
}
