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
    /// A send to it failed: it is dropped at the end of the turn, after what it sent before
    /// leaving (a drain's hand-backs, a last chunk) has been read.
    var unreachable = false

    var free: Int { unreachable ? 0 : slots - running.count }
}

struct AttemptKey: Hashable {
    var job: String
    var shard: Int
    var attempt: Int
}

enum ShardState: String {
    case queued, running, done
}

/// An unfinished job's shards as the scheduler sees them. Counts and the queue are kept
/// as shards change state, so dispatch and status cost the same for 10 or 50,000 shards.
final class ActiveJob {
    let id: String
    let priority: Int
    let created: Double
    let assignment: ShardAssignment   // template: session, files, paths, settings
    let tasks: [ShardTask]
    private(set) var state: [ShardState]
    private var queue = ShardQueue()
    private(set) var counts: [ShardState: Int] = [:]
    private(set) var framesDone: Int64 = 0
    /// Shards finished per worker id.
    private(set) var doneBy: [String: Int] = [:]
    private var doneWorker: [Int: String] = [:]
    var running: [Int: [Int: (worker: Data, started: Double)]] = [:]   // shard → attempt → (worker, start)
    var nextAttempt: [Int: Int] = [:]
    var failedOn: [Int: Set<String>] = [:]
    var phase: String                 // queued, rendering, assembling
    var watchers: Set<Data> = []
    var workerPeakRSSKB: Int?

    init(id: String, priority: Int, created: Double, assignment: ShardAssignment, tasks: [ShardTask], phase: String) {
        self.id = id
        self.priority = priority
        self.created = created
        self.assignment = assignment
        self.tasks = tasks
        self.phase = phase
        state = Array(repeating: .queued, count: tasks.count)
        counts[.queued] = tasks.count
        for shard in tasks.indices { queue.push(shard) }
    }

    /// Moves a shard to `new`; `worker` names who finished it (for `.done`).
    func set(_ shard: Int, _ new: ShardState, worker: String? = nil) {
        let old = state[shard]
        guard old != new else { return }
        state[shard] = new
        counts[old, default: 0] -= 1
        counts[new, default: 0] += 1
        if old == .done {
            framesDone -= tasks[shard].frameCount
            if let previous = doneWorker.removeValue(forKey: shard) { doneBy[previous, default: 0] -= 1 }
        }
        if new == .done {
            framesDone += tasks[shard].frameCount
            if let worker {
                doneWorker[shard] = worker
                doneBy[worker, default: 0] += 1
            }
        }
        if new == .queued { queue.push(shard) }
    }

    /// The lowest queued shard that `accept`s.
    func nextQueued(where accept: (Int) -> Bool) -> Int? {
        queue.first(isQueued: { state[$0] == .queued }, where: accept)
    }

    var hasQueued: Bool { (counts[.queued] ?? 0) > 0 }
    var runningCount: Int { running.values.reduce(0) { $0 + $1.count } }
    var allDone: Bool { counts[.done] == tasks.count }
}
