import Foundation

/// What the farm has been doing, as rates (docs/operations.md, "Metrics"): frames per
/// second of the whole farm, of each unfinished job and of each connected worker, and the
/// memory workers report — for statuses, `reel workers`, the dashboard and the gauges.
/// Fed by the coordinator's events, sampled once a second.
struct FarmActivity {
    private var sampledAt = -Double.infinity
    private var farmRate = FrameRate()
    private(set) var framesRendered: Int64 = 0
    private(set) var framesPerSecond = 0.0
    private var workers: [String: WorkerActivity] = [:]
    private var jobs: [String: (rate: FrameRate, framesPerSecond: Double)] = [:]

    mutating func rendered(_ frames: Int64, by worker: String) {
        framesRendered += frames
        workers[worker, default: WorkerActivity()].frames += frames
    }

    /// A heartbeat's figures: its memory, and its CPU time, made a rate between heartbeats.
    mutating func reported(residentKB: Int?, cpuSeconds: Double?, by worker: String, at now: Double) {
        var activity = workers[worker, default: WorkerActivity()]
        if let residentKB { activity.residentKB = residentKB }
        if let cpuSeconds { activity.reported(cpuSeconds: cpuSeconds, at: now) }
        workers[worker] = activity
    }

    func worker(_ id: String) -> WorkerActivity? { workers[id] }

    /// The job's frames per second over the last seconds, once known.
    func framesPerSecond(ofJob id: String) -> Double? { jobs[id]?.framesPerSecond }

    /// Samples the rates if a second has passed; returns whether it did. `jobs`: frames done
    /// of each unfinished job; `connected`: the ids of the workers connected now.
    mutating func sample(now: Double, framesDone jobs: [String: Int64], connected: Set<String>) -> Bool {
        guard now - sampledAt >= 1 else { return false }
        sampledAt = now
        for (id, done) in jobs {
            var entry = self.jobs[id] ?? (FrameRate(), 0)
            entry.framesPerSecond = entry.rate.add(total: done, at: now)
            self.jobs[id] = entry
        }
        self.jobs = self.jobs.filter { jobs[$0.key] != nil }
        framesPerSecond = farmRate.add(total: framesRendered, at: now)
        workers = workers.filter { connected.contains($0.key) }
        for id in workers.keys { workers[id]?.sample(at: now) }
        return true
    }
}

/// What a connected worker has been doing, for `reel workers` and the dashboard.
struct WorkerActivity {
    var residentKB: Int?
    /// Frames of the shards it finished since it joined.
    var frames: Int64 = 0
    private var rate = FrameRate()
    private(set) var framesPerSecond = 0.0

    /// Cores the worker's process kept busy between its last two heartbeats at least 1 s apart.
    private(set) var cpuCores: Double?
    private var lastCPU: (seconds: Double, at: Double)?

    mutating func sample(at now: Double) { framesPerSecond = rate.add(total: frames, at: now) }

    mutating func reported(cpuSeconds: Double, at now: Double) {
        guard let last = lastCPU else { lastCPU = (cpuSeconds, now); return }
        guard now - last.at >= 1 else { return }
        cpuCores = max(0, cpuSeconds - last.seconds) / (now - last.at)
        lastCPU = (cpuSeconds, now)
    }
}
