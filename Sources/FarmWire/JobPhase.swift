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

/// A job's shards counted by state. An ended job runs and waits for nothing, so its
/// unfinished shards count as `abandoned` (`ended`); a live job's `abandoned` is 0.
public struct ShardCounts: Codable, Sendable, Equatable {
    public var queued = 0
    public var running = 0
    public var done = 0
    public var abandoned = 0

    public init(queued: Int = 0, running: Int = 0, done: Int = 0, abandoned: Int = 0) {
        (self.queued, self.running, self.done, self.abandoned) = (queued, running, done, abandoned)
    }

    public var total: Int { queued + running + done + abandoned }

    public subscript(state: ShardState) -> Int {
        get {
            switch state {
            case .queued: queued
            case .running: running
            case .done: done
            }
        }
        set {
            switch state {
            case .queued: queued = newValue
            case .running: running = newValue
            case .done: done = newValue
            }
        }
    }

    /// The counts once the job has ended: what had not run is abandoned.
    public var ended: ShardCounts {
        ShardCounts(done: done, abandoned: abandoned + queued + running)
    }
}
