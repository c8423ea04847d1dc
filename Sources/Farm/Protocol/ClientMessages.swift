import Foundation
import RenderEngine
import SessionKit

// The messages between a client and the coordinator (docs/protocol.md, "Client ⇄ coordinator").

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
    /// Whose possession of the media is checked, when an admin submits for a client that
    /// must have sent each file's bytes itself (the HTTP API's token holders); ignored from
    /// any other key, whose own possession is checked.
    public var holder: String? = nil
    /// A URL told when the job ends (docs/api.md, "Webhooks").
    public var callback: String? = nil
    /// Presigned PUT URLs the result is sent to when done (docs/api.md, "Output to a URL").
    public var outputURL: String? = nil
    public var sidecarURL: String? = nil
    /// Sources of the session rendered from other media, OLD → NEW, NEW a reference in
    /// `files` or a URL (docs/session-format.md, "Templates"); applied by the coordinator.
    public var replace: [String: String]? = nil
    /// Replaced sources' geometry a sidecar recorded (`reel batch --from`), for those whose
    /// files the submission does not carry.
    public var geometry: [String: SourceGeometry]? = nil
    /// A batch (docs/api.md, "Batches"): one job per variant, each the session with the
    /// variant's replacements; `files` holds every variant's media. All are created, or none.
    public var variants: [BatchVariant]? = nil
    /// Seconds the submitter waits for the answer: past them (by the coordinator's clock,
    /// from the message's arrival) nothing is created, so a client that gave up and retries
    /// never finds its first try rendering too.
    public var answerWithin: Double? = nil
    /// The pool of workers that alone render it (`settings.pool` over HTTP, `reel submit
    /// --pool`; docs/operations.md, "Pools"); absent: any worker.
    public var pool: String? = nil

    /// Seconds a batch may take to answer beyond a client's usual wait, per variant: each
    /// is compiled before any job is made, about 2 ms apiece alone on a 2-core machine
    /// (docs/api.md, "Batches": 10,000 variants, 100 s more).
    public static let secondsPerVariant = 0.01

    /// How long a client that waits `seconds` for an answer waits for this one: longer
    /// for a batch, by its variants.
    public func answerSeconds(usually seconds: Double) -> Double {
        seconds + Double(variants?.count ?? 0) * Self.secondsPerVariant
    }
    /// A retry of the same request under the same key gets the first answer again, not a
    /// second job (the HTTP API's `Idempotency-Key`; docs/api.md, "Retrying a submission").
    public var idempotencyKey: String? = nil

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
    /// Validation problems, each at its JSON path; the job was not created.
    public var problems: [ValidationReport.Issue]
    /// Shards whose chunks came from the coordinator's chunk cache, of all the job's.
    public var reused: Int? = nil
    public var shards: Int? = nil
    /// A batch's id and its variants' jobs, in the submitted order.
    public var batchID: String? = nil
    public var variants: [VariantJob]? = nil
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
    /// The coordinator had these bytes already: they were checked, not stored twice.
    public var wasStored: Bool? = nil
}

/// A file the HTTP API in the coordinator's process has received whole, handed over by
/// path (docs/protocol.md, "Uploads"): the coordinator hashes it once, on its I/O lane, and
/// moves it into its media. Only an admin (or any peer of a farm without keys) may send it,
/// and only a regular file directly in the API's folders under the state directory is taken.
public struct Adopt: Codable, Sendable {
    public var contentID: String
    public var path: String
    /// Who sent the bytes (`token:NAME`): from then on they hold the media. Nil for an admin.
    public var holder: String?

    public init(contentID: String, path: String, holder: String?) {
        (self.contentID, self.path, self.holder) = (contentID, path, holder)
    }
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
    /// Every job of this batch, in its variants' order (no paging).
    public var batch: String? = nil

    public init(jobID: String? = nil, owner: String? = nil, limit: Int? = nil, after: String? = nil, batch: String? = nil) {
        self.batch = batch
        self.jobID = jobID
        self.owner = owner
        self.limit = limit
        self.after = after
    }
}

public struct StatusReply: Codable, Sendable {
    public var jobs: [JobStatus]
    /// Bytes under the coordinator's state directory (measured at most every 10 s).
    public var stateBytes: Int64? = nil
    /// A full page of the list: the cursor of the next (`StatusRequest.after`).
    public var next: String? = nil
}

/// A question or an order about one job. `onBehalfOf`: the owner an admin key (or any
/// peer of a farm without keys: the HTTP API) acts for — the coordinator refuses the
/// request `notOwner` unless the job is theirs, so the API checks ownership in the same
/// round trip (docs/protocol.md, "Security"); ignored from a client key, whose own key is checked.
public struct JobRequest: Codable, Sendable {
    public var jobID: String
    public var onBehalfOf: String? = nil

    public init(jobID: String, onBehalfOf: String? = nil) {
        (self.jobID, self.onBehalfOf) = (jobID, onBehalfOf)
    }
}

public struct FetchRequest: Codable, Sendable {
    public var jobID: String
    public var offset: Int
    public var length: Int
    public var part: ResultPart
    public var onBehalfOf: String? = nil

    public init(jobID: String, offset: Int, length: Int, part: ResultPart, onBehalfOf: String? = nil) {
        (self.jobID, self.offset, self.length, self.part, self.onBehalfOf) = (jobID, offset, length, part, onBehalfOf)
    }
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
    /// Cores its process kept busy between its last heartbeats (1.5 = 150 % of one core).
    public var cpuCores: Double? = nil
    /// Whether it takes shards now (docs/operations.md, "Sick workers").
    public var state: WorkerAvailability? = nil
    /// The pools it serves (docs/operations.md, "Pools"); absent: none.
    public var pools: [String]? = nil
    /// While quarantined: until when (Unix seconds) and why.
    public var quarantinedUntil: Double? = nil
    public var quarantineReason: String? = nil
}

/// Whether a connected worker takes shards.
public enum WorkerAvailability: String, Codable, Sendable, CaseIterable {
    /// Takes shards as its slots free up.
    case ready
    /// Shutting down: finishes or hands back what it holds, takes nothing new.
    case draining
    /// Too many of its shards failed and then succeeded elsewhere: it takes nothing until
    /// its quarantine ends or an operator lifts it (`reel workers --release ID`).
    case quarantined
}

/// An operator lifts a worker's quarantine (admin only); answered with the workers.
public struct ReleaseWorker: Codable, Sendable {
    public var workerID: String
    public init(workerID: String) { self.workerID = workerID }
}

/// A new priority for an unfinished job (higher first; −1000…1000).
public struct SetPriority: Codable, Sendable {
    public var jobID: String
    public var priority: Int
    public var onBehalfOf: String? = nil
    /// An admin's farm-wide priority (docs/operations.md, "Tenants"): above 0 the job goes
    /// before every tenant's share; 0 gives it back to its tenant's share. Without it, the
    /// priority orders the job among its own tenant's jobs only.
    public var farmWide: Bool? = nil

    public init(jobID: String, priority: Int, onBehalfOf: String? = nil, farmWide: Bool = false) {
        (self.jobID, self.priority, self.onBehalfOf) = (jobID, priority, onBehalfOf)
        self.farmWide = farmWide ? true : nil
    }
}

/// Whether the coordinator holds a media file (`HEAD /v1/media/{contentID}`): for a
/// client key, only if that key has sent its bytes; an admin may ask for the `holder` it
/// serves (the HTTP API's `token:NAME`).
public struct MediaQuery: Codable, Sendable {
    public var contentID: String
    public var holder: String? = nil
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
    /// The worker that rendered it, or holds it now.
    public var worker: String?
    /// Done with a chunk rendered before (the chunk cache, or a twin): no worker rendered it.
    public var reused: Bool?
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
