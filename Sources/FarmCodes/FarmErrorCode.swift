/// What went wrong, as a code a program acts on (docs/protocol.md, "Errors"). The code
/// travels with every `error` and `refused` message and every failed shard; the message
/// is for people. Callers decide by the code, never by the message's words, and the
/// HTTP API maps each code to one status (docs/api.md, "Errors").
public enum FarmErrorCode: String, Codable, Sendable, CaseIterable {
    /// A request the farm will not act on as asked: a bad priority, part or content id.
    case invalidInput
    /// Not a message of this protocol, or a body that does not decode.
    case malformed
    /// The peer speaks another protocol version.
    case versionMismatch
    /// A worker whose engine differs from the coordinator's: its bytes would differ.
    case engineMismatch
    /// The connection has no authorized CURVE key.
    case unauthorized
    /// The key's role may not send this message.
    case forbidden
    /// The job is another client's.
    case notOwner
    case noSuchJob
    /// The job has ended (done, failed or cancelled): it cannot be changed or cancelled.
    case alreadyEnded
    /// The job has not ended: its result cannot be read or deleted yet.
    case notEnded
    /// The job's result was removed (fetched with `--delete`, or past `--keep-results`).
    case resultGone
    /// A worker the coordinator does not know (it restarted, or dropped the worker): say hello.
    case unknownWorker
    /// The coordinator does not hold media it was asked for.
    case missingMedia
    /// A disk has too little room for the work.
    case storageFull
    /// A source read by URL changed during the job (its size, ETag or Last-Modified): the
    /// job fails rather than mix two versions.
    case mediaChanged
    /// A source's origin refused it (403, 404, 410), answered something that is not media,
    /// or the farm's URL policy refuses its host: no retry helps.
    case originRefused
    /// A file could not be read or written.
    case ioFailed
    /// A render stopped because its shard was cancelled (or a backup copy won elsewhere).
    case cancelled
    /// A draining worker gave the shard back unfinished: queued again, not a failure.
    case handedBack
    /// The render itself failed (bad media, a codec error).
    case renderFailed
    /// The coordinator did not answer in time (said by a client, never sent).
    case noAnswer
    /// The CURVE handshake failed (said by a client, never sent).
    case handshakeFailed
    /// Anything else: a fault of the farm, not of the request.
    case `internal`

    /// A shard failure no other attempt can mend: the job fails at once, with the reason.
    public var failsTheJob: Bool { self == .mediaChanged || self == .originRefused }

    /// A code this build does not know (a newer peer's) reads as `internal`, so one new
    /// code never makes a whole message undecodable.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        self = FarmErrorCode(rawValue: raw) ?? .internal
    }
}
