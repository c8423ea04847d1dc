/// What went wrong, as a code a program acts on (docs/protocol.md, "Errors"). The code
/// travels with every `error` and `refused` message, every failed shard and every refusal
/// of the HTTP API; the message is for people. Callers decide by the code, never by the
/// message's words, and never by an HTTP status: each code has one status (`httpStatus`),
/// and the API's body names the code (docs/api.md, "Errors").
public enum FarmErrorCode: String, Codable, Sendable, CaseIterable {
    /// A request the farm will not act on as asked: a bad priority, part or content id.
    case invalidInput
    /// Not a request of this protocol: a body, header, query parameter or path segment
    /// that does not parse.
    case malformed
    /// The peer speaks another protocol version.
    case versionMismatch
    /// A worker whose engine differs from the coordinator's: its bytes would differ.
    case engineMismatch
    /// The connection has no authorized CURVE key, or the request no valid token.
    case unauthorized
    /// The key's role may not send this message, or a signed URL does not sign this path.
    case forbidden
    /// The job (or batch) is another client's.
    case notOwner
    case noSuchJob
    /// No such resource besides a job: a batch, a preview segment, a path of the API.
    case notFound
    /// The path exists, but not for this method (the answer's `Allow` lists those it takes).
    case methodNotAllowed
    /// The job has ended (done, failed or cancelled): it cannot be changed or cancelled.
    case alreadyEnded
    /// The job has not ended: its result cannot be read or deleted yet.
    case notEnded
    /// Another upload of the same content is in progress: try again once it has ended.
    case uploadInProgress
    /// A part of an upload that does not start where the upload stands (the answer's
    /// `Upload-Offset` says where).
    case offsetMismatch
    /// The job's result was removed (fetched with `--delete`, or past `--keep-results`).
    case resultGone
    /// A body larger than the route takes.
    case tooLarge
    /// A body of a type the route does not read (its `Content-Type`).
    case unsupportedMediaType
    /// A byte range outside the file.
    case rangeNotSatisfiable
    /// A worker the coordinator does not know (it restarted, or dropped the worker): say hello.
    case unknownWorker
    /// The coordinator does not hold media it was asked for.
    case missingMedia
    /// A disk has too little room for the work.
    case storageFull
    /// A source read by URL changed during the job (its size, ETag or Last-Modified): the
    /// job fails rather than mix two versions.
    case mediaChanged
    /// Media uploaded to a coordinator whose disk is gone (a leader that died, docs/operations.md,
    /// "A standby coordinator"): the job that needs it fails; upload it again and resubmit.
    case mediaLost
    /// A source's origin refused it (403, 404, 410), answered something that is not media,
    /// or the farm's URL policy refuses its host: no retry helps.
    case originRefused
    /// A file could not be read or written.
    case ioFailed
    /// A render stopped because its shard was cancelled (or a backup copy won elsewhere);
    /// a job cancelled by its owner.
    case cancelled
    /// A draining worker gave the shard back unfinished: queued again, not a failure.
    case handedBack
    /// The render itself failed (bad media, a codec error).
    case renderFailed
    /// The caller holds its share of the farm's calls, pictures or streams: retry after
    /// the answer's `Retry-After`.
    case tooManyRequests
    /// The server takes no more connections from this address now: retry after `Retry-After`.
    case unavailable
    /// The coordinator did not answer in time.
    case noAnswer
    /// This coordinator stands by and does not lead (docs/operations.md, "A standby
    /// coordinator"): it answers reads only. Retry after `Retry-After`, or ask another.
    case notLeader
    /// The CURVE handshake failed (said by a client, never sent).
    case handshakeFailed
    /// Anything else: a fault of the farm, not of the request.
    case `internal`

    /// A shard failure no other attempt can mend: the job fails at once, with the reason.
    public var failsTheJob: Bool { self == .mediaChanged || self == .originRefused || self == .mediaLost }

    /// The one HTTP status the API answers a refusal of this code with (docs/api.md,
    /// "Errors"). Several codes share a status; no status stands for a code.
    public var httpStatus: Int {
        switch self {
        case .malformed: 400
        case .unauthorized: 401
        case .forbidden, .notOwner: 403
        case .noSuchJob, .notFound: 404
        case .methodNotAllowed: 405
        case .alreadyEnded, .notEnded, .uploadInProgress, .offsetMismatch, .missingMedia, .mediaChanged, .mediaLost, .cancelled,
             .handedBack: 409
        case .resultGone: 410
        case .tooLarge: 413
        case .unsupportedMediaType: 415
        case .rangeNotSatisfiable: 416
        case .invalidInput, .originRefused: 422
        case .tooManyRequests: 429
        case .ioFailed, .internal: 500
        case .versionMismatch, .engineMismatch, .handshakeFailed, .unknownWorker, .renderFailed: 502
        case .unavailable, .notLeader: 503
        case .noAnswer: 504
        case .storageFull: 507
        }
    }

    /// A code this build does not know (a newer peer's) reads as `internal`, so one new
    /// code never makes a whole message undecodable.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        self = FarmErrorCode(rawValue: raw) ?? .internal
    }
}
