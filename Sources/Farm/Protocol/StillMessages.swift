import Foundation
import RenderEngine
import SessionKit

// Thumbnails and frames: client → coordinator → worker and back (docs/protocol.md, "Client ⇄ coordinator").

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

/// Thumbnails or frames of a one-segment still session (`Session.stillSession`).
public struct StillsRequest: Codable, Sendable {
    /// The client's id, echoed in the reply; the coordinator uses its own towards workers.
    public var requestID: String
    public var session: String
    public var files: [String: String]
    public var paths: [String: String]
    public var stills: [StillRequest]
    /// Sources by URL, pinned by whoever asks: the worker reads them from their origins,
    /// under its own address policy (docs/operations.md, "Sources by URL").
    public var origins: [String: OriginObject]?
    /// Only the media's probes are wanted (`StillsReply.probes`), no pictures: the
    /// coordinator asks the workers to probe URL media new to the farm (docs/architecture.md,
    /// "Probes by content id").
    public var probe: Bool?
    /// Only workers of this pool serve it: a job's pictures follow the job's pool
    /// (docs/operations.md, "Pools").
    public var pool: String? = nil
}

/// One payload frame per picture, in request order, unless `invalid`, `error` or `missing`.
public struct StillsReply: Codable, Sendable {
    public var requestID: String
    public var worker: String
    public var results: [StillResult]
    /// The request cannot be served (bad time, size…): invalid input, each problem at its path.
    public var invalid: [ValidationReport.Issue]?
    /// Serving failed (on the worker, or no worker could serve it), with the code that
    /// says why: a URL the policy refuses is `originRefused`, not a failed render.
    public var error: FarmError?
    /// Content ids the coordinator lacks: upload them and ask again.
    public var missing: [String]
    /// For a `probe` request: each medium's probe, by content id.
    public var probes: [String: MediaInfo]?
}

public struct InvalidateRequest: Codable, Sendable {
    public var contentIDs: [String]
}

public struct Invalidated: Codable, Sendable {
    /// Pictures removed (from the local side: the coordinator counts the workers told).
    public var removed: Int
}
