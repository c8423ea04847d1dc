/// One attempt at one shard of one job: the unit a worker is given and reports on
/// (docs/protocol.md, "Worker ⇄ coordinator"). The coordinator's scheduler, its store and the worker all
/// key their attempts by it; its text form `job/shard/attempt` is for logs only.
public struct AttemptID: Hashable, Codable, Sendable, CustomStringConvertible {
    public var jobID: String
    public var shard: Int
    public var attempt: Int

    public init(jobID: String, shard: Int, attempt: Int) {
        self.jobID = jobID
        self.shard = shard
        self.attempt = attempt
    }

    public var description: String { "\(jobID)/\(shard)/\(attempt)" }
}
