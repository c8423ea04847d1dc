/// Where a job is (docs/protocol.md, "Client ⇄ coordinator"): the one definition the scheduler, the
/// store, statuses on the wire and the CLI share. Its raw values are the JSON and the
/// store's text.
public enum JobPhase: String, Codable, Sendable, CaseIterable {
    case queued, rendering, assembling, done, failed, cancelled

    /// The job is over: nothing more is dispatched, its result (if any) is final.
    public var isFinal: Bool { self == .done || self == .failed || self == .cancelled }
}

/// Where a shard is: waiting, held by a worker (or several, with a backup copy), or
/// rendered and its chunk stored.
public enum ShardState: String, Codable, Sendable, CaseIterable {
    case queued, running, done
}
