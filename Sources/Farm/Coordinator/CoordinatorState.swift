import Foundation

/// What the coordinator keeps in memory about a connected worker.
struct WorkerState {
    var identity: Data
    var workerID: String
    var host: String
    var slots: Int
    var lastSeen: Double
    /// (job, shard, attempt) running on it.
    var running: Set<AttemptKey> = []

    var free: Int { slots - running.count }
}

struct AttemptKey: Hashable {
    var job: String
    var shard: Int
    var attempt: Int
}

/// An unfinished job's shards as the scheduler sees them.
final class ActiveJob {
    let id: String
    let priority: Int
    let created: Double
    let assignment: ShardAssignment   // template: session, files, paths, settings
    var tasks: [ShardTask]
    var state: [String]               // per shard: queued, running, done
    var running: [Int: [Int: (worker: Data, started: Double)]] = [:]   // shard → attempt → (worker, start)
    var nextAttempt: [Int: Int] = [:]
    var failedOn: [Int: Set<String>] = [:]
    var phase: String                 // queued, rendering, assembling
    var watchers: Set<Data> = []

    init(id: String, priority: Int, created: Double, assignment: ShardAssignment, tasks: [ShardTask], state: [String], phase: String) {
        self.id = id
        self.priority = priority
        self.created = created
        self.assignment = assignment
        self.tasks = tasks
        self.state = state
        self.phase = phase
    }

    var queued: [Int] { state.indices.filter { state[$0] == "queued" } }
    var runningCount: Int { running.values.reduce(0) { $0 + $1.count } }
    var allDone: Bool { state.allSatisfy { $0 == "done" } }
}
