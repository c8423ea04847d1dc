/// Why media could not be read from its origin (docs/operations.md, "Sources by URL").
/// Messages carry redacted URLs only.
public struct OriginError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The URL policy refuses the host or its address: nothing was sent.
        case refused
        /// The origin answered a status no retry changes (403, 404, 410, a redirect loop …).
        case status(Int)
        /// The object is not the one pinned when the job was planned (size, ETag, Last-Modified).
        case changed
        /// The origin answered something that is not media (an HTML page, JSON).
        case notMedia
        /// The origin did not answer, reset the connection or kept failing with 5xx, retries spent.
        case unreachable
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Whether trying again elsewhere cannot help: the job fails rather than the shard retried.
    public var isPermanent: Bool { kind != .unreachable }

    public var description: String { message }
}
