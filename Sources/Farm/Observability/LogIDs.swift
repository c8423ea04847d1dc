import SessionKit
import Logging

/// The ids an event concerns. They travel as fields of its log line (docs/operations.md,
/// "Logs"), so one job, shard, attempt or worker can be followed through every process.
public struct LogIDs: Sendable, Equatable {
    public var job: String?
    public var shard: Int?
    public var attempt: Int?
    public var worker: String?

    public init(job: String? = nil, shard: Int? = nil, attempt: Int? = nil, worker: String? = nil) {
        self.job = job
        self.shard = shard
        self.attempt = attempt
        self.worker = worker
    }

    public static let none = LogIDs()

    var metadata: Logger.Metadata {
        var fields: Logger.Metadata = [:]
        if let job { fields["job"] = .string(job) }
        if let shard { fields["shard"] = .stringConvertible(shard) }
        if let attempt { fields["attempt"] = .stringConvertible(attempt) }
        if let worker { fields["worker"] = .string(worker) }
        return fields
    }
}

extension LogIDs {
    init(_ key: AttemptID, worker: String? = nil) {
        self.init(job: key.jobID, shard: key.shard, attempt: key.attempt, worker: worker)
    }
}

extension Logger {
    /// One event: a sentence for people, the ids as fields for machines.
    func log(_ level: Logger.Level = .info, _ message: String, _ ids: LogIDs) {
        log(level: level, "\(message)", metadata: ids.metadata)
    }
}
