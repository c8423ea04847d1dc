import Foundation
import RenderEngine

/// Where a job is in its life (docs/operations.md, "Jobs"). The store keeps the raw value.
public enum JobPhase: String, Sendable, CaseIterable {
    case queued, rendering, assembling, done, failed, cancelled

    /// The job is over: nothing more is dispatched, its result (if any) is final.
    public var isFinal: Bool { self == .done || self == .failed || self == .cancelled }
}

enum ShardState: String {
    case queued, running, done
}

/// One attempt at one shard: the unit a worker is given and reports on.
struct AttemptKey: Hashable, Sendable {
    var job: String
    var shard: Int
    var attempt: Int
}

/// A running attempt: who holds it and since when.
struct RunningAttempt: Equatable {
    var worker: PeerID
    var started: Double
}

/// An unfinished job's shards as the scheduler sees them. Counts and the queue are kept
/// as shards change state, so dispatch and status cost the same for 10 or 50,000 shards.
struct ScheduledJob {
    let id: String
    let priority: Int
    let created: Double
    /// The client key that submitted it (under CURVE), who may cancel and fetch it.
    let owner: String?
    let assignment: ShardAssignment   // template: session, files, paths, settings
    let tasks: [ShardTask]
    /// The media reference each segment reads, and those with audio (the audio task's):
    /// a shard is sent only its own media. Empty: unknown, every shard gets every file.
    let segmentMedia: [String]
    let audioMedia: Set<String>
    /// Each task's recipe key (docs/rendering.md, "Reusing chunks"); empty when unknown.
    let recipeKeys: [String]
    private(set) var state: [ShardState]
    private var queue = ShardQueue()
    private(set) var counts: [ShardState: Int] = [:]
    private(set) var framesDone: Int64 = 0
    /// Shards finished per worker id.
    private(set) var doneBy: [String: Int] = [:]
    private var doneWorker: [Int: String] = [:]
    /// shard → attempt → holder.
    var running: [Int: [Int: RunningAttempt]] = [:]
    var nextAttempt: [Int: Int] = [:]
    /// Worker ids each shard failed on, and every failure's message (for the job's error).
    var failedOn: [Int: Set<String>] = [:]
    var failures: [Int: [String]] = [:]
    var phase: JobPhase
    var workerPeakRSSKB: Int?

    init(id: String, priority: Int, created: Double, owner: String? = nil, assignment: ShardAssignment, tasks: [ShardTask],
         segmentMedia: [String] = [], audioMedia: Set<String> = [], recipeKeys: [String] = [], phase: JobPhase = .queued) {
        self.id = id
        self.recipeKeys = recipeKeys
        self.segmentMedia = segmentMedia
        self.audioMedia = audioMedia
        self.priority = priority
        self.created = created
        self.owner = owner
        self.assignment = assignment
        self.tasks = tasks
        self.phase = phase
        state = Array(repeating: .queued, count: tasks.count)
        counts[.queued] = tasks.count
        for shard in tasks.indices { queue.push(shard) }
    }

    /// Moves a shard to `new`; `worker` names who finished it (for `.done`).
    mutating func set(_ shard: Int, _ new: ShardState, worker: String? = nil) {
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
    mutating func nextQueued(where accept: (Int) -> Bool) -> Int? {
        let state = self.state
        return queue.first(isQueued: { state[$0] == .queued }, where: accept)
    }

    /// The files (reference → content id) and paths a shard's worker gets: every filter
    /// file, and of the media only what its task reads.
    func files(forShard shard: Int) -> (files: [String: String], paths: [String: String]) {
        guard !segmentMedia.isEmpty, tasks.indices.contains(shard) else { return (assignment.files, assignment.paths) }
        let task = tasks[shard]
        let reads: Set<String> = task.kind == .video
            ? (segmentMedia.indices.contains(task.segment) ? [segmentMedia[task.segment]] : [])
            : audioMedia
        let media = Set(segmentMedia)
        let keep = { (reference: String) in !media.contains(reference) || reads.contains(reference) }
        return (assignment.files.filter { keep($0.key) }, assignment.paths.filter { keep($0.key) })
    }

    var hasQueued: Bool { (counts[.queued] ?? 0) > 0 }
    var runningCount: Int { running.values.reduce(0) { $0 + $1.count } }
    var allDone: Bool { counts[.done] == tasks.count }
    var isDispatchable: Bool { phase == .queued || phase == .rendering }
}
