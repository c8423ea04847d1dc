import Foundation
import RenderEngine
import SessionKit

/// A running attempt: who holds it and since when.
struct RunningAttempt: Equatable, Sendable {
    var worker: PeerID
    var started: Double
    /// Frames encoded by `framesAt`, as its worker's last heartbeat said.
    var frames = 0
    var framesAt: Double?
    /// Media bytes sent for it, by content id: what a copy of it would read.
    var read: [String: HeldBytes] = [:]

    /// Seconds it still needs at the pace it has kept, if its worker has said.
    func secondsLeft(of total: Int64, now: Double) -> Double? {
        guard frames > 0, let at = framesAt, at > started else { return nil }
        let pace = Double(frames) / (at - started)
        return max(0, Double(total - Int64(frames)) / pace - (now - at))
    }
}

/// An unfinished job's shards as the scheduler sees them. Counts and the queue are kept
/// as shards change state, so dispatch and status cost the same for 10 or 50,000 shards.
struct ScheduledJob: Sendable {
    let id: String
    /// Orders this job among its tenant's own jobs only (docs/operations.md, "Tenants").
    var priority: Int
    /// Set by an admin: an urgent job of any tenant, ahead of every tenant's share.
    var farmPriority: Int
    let created: Double
    /// The client that submitted it (a CURVE key, or `token:NAME` for the HTTP API's token
    /// holders), who may cancel and fetch it.
    let owner: String?
    /// Whose share of the workers its shards take: its owner; jobs without one (a farm
    /// without keys or tokens) are one tenant.
    var tenant: String { owner ?? "" }
    /// The job compiled at submit: each shard's spec is cut from it when it is sent.
    let spec: JobSpec
    /// Where the coordinator reads each file (reference → path), and the stat of each it
    /// verified against its content id.
    let paths: [String: String]
    let pathStats: [String: FileStat]
    /// Each task's recipe key (docs/rendering.md, "Reusing chunks"); empty when unknown.
    let recipeKeys: [String]
    /// Recipe keys of the shards running now, counted (a job may hold one recipe twice),
    /// so dispatch can hold back another job's twin (docs/rendering.md, "Twins").
    private(set) var runningKeys: [String: Int] = [:]
    /// The shards of each recipe key, for handing a finished chunk to queued twins.
    let shardsByKey: [String: [Int]]
    private(set) var state: [ShardState]
    /// Queued shards whose chunk a lane is linking in (from the chunk cache or a twin):
    /// not given out meanwhile, queued again if the link fails.
    private(set) var linking: Set<Int> = []
    private var queue = ShardQueue()
    private(set) var counts = ShardCounts()
    /// The video shards among `counts` (what a progress line counts: an audio piece is no
    /// shard of the picture).
    private(set) var videoCounts = ShardCounts()
    private(set) var framesDone: Int64 = 0
    /// Shards finished by each worker, and reused.
    private(set) var doneBy: [ChunkSource: Int] = [:]
    private var doneWorker: [Int: ChunkSource] = [:]
    /// shard → attempt → holder.
    var running: [Int: [Int: RunningAttempt]] = [:]
    var nextAttempt: [Int: Int] = [:]
    /// Worker ids each shard failed on, and every failure's message (for the job's error).
    var failedOn: [Int: Set<String>] = [:]
    var failures: [Int: [String]] = [:]
    var phase: JobPhase
    var workerPeakRSSKB: Int?
    /// How long this job's finished attempts took.
    var shardTimes = ShardTimes()
    /// The encoder fingerprint of the first worker given one of its shards: the others
    /// must match it, so every chunk comes from an encoder that agrees (docs/rendering.md).
    var encoderFingerprint: String?

    /// The pool whose workers alone render it (docs/operations.md, "Pools").
    var pool: String? { spec.pool }

    /// Whether this worker may render this job's shards: of its pool, with an encoder that agrees.
    func accepts(_ worker: WorkerState) -> Bool {
        guard pool.map(worker.pools.contains) ?? true else { return false }
        return accepts(worker.encoders)
    }

    /// Whether a worker with these encoders may render this job's shards.
    func accepts(_ encoders: [String: String]?) -> Bool {
        guard let encoders else { return true }   // a worker that does not say is not checked
        guard let own = encoders[spec.settings.videoCodec.rawValue] else { return false }
        return encoderFingerprint.map { $0 == own } ?? true
    }

    init(id: String, priority: Int, farmPriority: Int = 0, created: Double, owner: String? = nil, spec: JobSpec,
         paths: [String: String] = [:], pathStats: [String: FileStat] = [:], recipeKeys: [String] = [], phase: JobPhase = .queued) {
        self.farmPriority = farmPriority
        self.id = id
        self.recipeKeys = recipeKeys
        shardsByKey = Dictionary(grouping: recipeKeys.indices, by: { recipeKeys[$0] })
        self.priority = priority
        self.created = created
        self.owner = owner
        self.spec = spec
        self.paths = paths
        self.pathStats = pathStats
        self.phase = phase
        state = Array(repeating: .queued, count: spec.tasks.count)
        counts[.queued] = spec.tasks.count
        videoCounts[.queued] = spec.tasks.count { $0.kind == .video }
        for shard in spec.tasks.indices { queue.push(shard) }
    }

    /// Moves a shard to `new`; `source` says who made its chunk (for `.done`).
    mutating func set(_ shard: Int, _ new: ShardState, by source: ChunkSource? = nil) {
        let old = state[shard]
        guard old != new else { return }
        state[shard] = new
        counts[old] -= 1
        counts[new] += 1
        if tasks[shard].kind == .video {
            videoCounts[old] -= 1
            videoCounts[new] += 1
        }
        if old == .done {
            framesDone -= tasks[shard].frameCount
            if let previous = doneWorker.removeValue(forKey: shard) { doneBy[previous, default: 0] -= 1 }
        }
        if new == .done {
            framesDone += tasks[shard].frameCount
            if let source {
                doneWorker[shard] = source
                doneBy[source, default: 0] += 1
            }
        }
        if new == .queued { queue.push(shard) } else { linking.remove(shard) }
        if let key = recipeKey(shard) {
            if old == .running, let count = runningKeys[key] { runningKeys[key] = count > 1 ? count - 1 : nil }
            if new == .running { runningKeys[key, default: 0] += 1 }
        }
    }

    func recipeKey(_ shard: Int) -> String? {
        recipeKeys.indices.contains(shard) ? recipeKeys[shard] : nil
    }

    /// Queued shards with this recipe key, not being linked already.
    func queuedShards(withKey key: String) -> [Int] {
        (shardsByKey[key] ?? []).filter { state[$0] == .queued && !linking.contains($0) }
    }

    /// Holds queued shards back while their chunks are linked in, or lets them go again.
    mutating func hold(_ shards: [Int]) {
        for shard in shards where state.indices.contains(shard) && state[shard] == .queued { linking.insert(shard) }
    }

    mutating func release(_ shards: [Int]) { linking.subtract(shards) }

    /// The lowest queued shard that `accept`s and is not being linked in.
    mutating func nextQueued(where accept: (Int) -> Bool) -> Int? {
        let (state, linking) = (self.state, self.linking)
        return queue.first(isQueued: { state[$0] == .queued }, where: { !linking.contains($0) && accept($0) })
    }

    var tasks: [ShardTask] { spec.tasks }

    /// Frames the running shards have encoded so far, as their workers' heartbeats said:
    /// the furthest attempt of each shard.
    var framesInProgress: Int64 {
        running.reduce(0) { sum, entry in
            let furthest = entry.value.values.map(\.frames).max() ?? 0
            return sum + min(Int64(furthest), tasks[entry.key].frameCount)
        }
    }

    /// Attempt `attempt` of `shard`: its spec and the paths of only its files.
    func assignment(shard: Int, attempt: Int) -> ShardAssignment {
        let shardSpec = spec.shard(shard)
        return ShardAssignment(jobID: id, shard: shard, attempt: attempt, spec: shardSpec,
                               paths: paths.filter { shardSpec.files[$0.key] != nil },
                               pathStats: pathStats.filter { shardSpec.files[$0.key] != nil })
    }

    var hasQueued: Bool { counts.queued > 0 }
    var runningCount: Int { running.values.reduce(0) { $0 + $1.count } }
    var allDone: Bool { counts.done == tasks.count }
    var isDispatchable: Bool { phase == .queued || phase == .rendering }
}

/// What a job's finished attempts took, by kind: video per frame (its shards differ in
/// length), audio per piece. A job's audio pieces finish in a fraction of a video shard's
/// time; one mean of both called every video shard a straggler once the pieces were in
/// (docs/operations.md, "Scaling").
struct ShardTimes {
    private var video = (seconds: 0.0, frames: Int64(0))
    private var audio = (seconds: 0.0, pieces: 0)

    mutating func add(_ seconds: Double, task: ShardTask) {
        if task.kind == .video {
            video.seconds += max(0, seconds)
            video.frames += max(1, task.frameCount)
        } else {
            audio.seconds += max(0, seconds)
            audio.pieces += 1
        }
    }

    /// Seconds a fresh attempt of `task` is expected to take, once one of its kind has finished.
    func expected(_ task: ShardTask) -> Double? {
        if task.kind == .video {
            return video.frames > 0 ? video.seconds / Double(video.frames) * Double(max(1, task.frameCount)) : nil
        }
        return audio.pieces > 0 ? audio.seconds / Double(audio.pieces) : nil
    }

    /// A running attempt of `task` gets a backup copy past this many seconds: 1.5 × what a
    /// fresh one is expected to take, and at least `minimum`; before any of its kind has
    /// finished, twice `minimum` (nothing says yet how long it takes, and a copy costs a
    /// worker and the shard's media again).
    func backupThreshold(for task: ShardTask, minimum: Double) -> Double {
        guard let expected = expected(task) else { return 2 * minimum }
        return max(minimum, 1.5 * expected)
    }
}
