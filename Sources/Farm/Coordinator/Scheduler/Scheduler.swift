import Foundation
import SessionKit
import Logging
import RenderEngine

/// The coordinator's decisions as a value (docs/architecture.md, "The scheduler"): every
/// event — a message from a peer, a finished write, the clock — goes in with the time, and
/// what to do comes out as effects for the ZeroMQ/SQLite shell to carry out. No I/O, no
/// clock, no randomness here, so every rule is tested on a fake clock.
struct Scheduler {
    let limits: Limits
    private(set) var workers: [PeerID: WorkerState] = [:]
    /// A job is changed taken out of this table and put back (`jobs.removeValue`): while the
    /// table holds it too, the first change would copy every array of its shards, about
    /// 0.1 ms a message for 7,200 shards (docs/benchmarks.md, "Loop lag").
    private(set) var jobs: [String: ScheduledJob] = [:]
    /// Why dispatch is paused: each cause that holds, with its detail.
    private(set) var pauses: [PauseCause: String] = [:]
    /// The last tick gave out its most (`Limits.dispatchesPerTick`) and more may go: the
    /// next turn should come at once.
    private(set) var moreToDispatch = false
    /// When each tenant with jobs last took a slot (a serial, counted in `servings`): of
    /// tenants equally below their shares, the one served longest ago goes next.
    private var served: [String: Int] = [:]
    /// Each worker's failures and quarantine, by worker id (`WorkerHealth`); changed only
    /// by `Scheduler+Health.swift`.
    var health: [String: WorkerHealth] = [:]
    /// Workers quarantined during the event at hand, whose attempts are withdrawn after it.
    var withdrawing: Set<String> = []
    /// Why a job with queued shards has no connected worker that may take them (a pool
    /// without workers, no encoder that agrees), as of the last dispatch.
    private(set) var waiting: [String: String] = [:]
    private var servings = 0
    private var effects: [Effect] = []
    private(set) var now = 0.0

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    mutating func handle(_ event: Event, now: Double) -> [Effect] {
        self.now = now
        switch event {
        case .heard(let peer): workers[peer]?.lastSeen = now
        case .hello(let peer, let workerID, let host, let slots, let encoders, let pools):
            hello(peer, workerID: workerID, host: host, slots: slots, encoders: encoders, pools: pools)
        case .heartbeat(let peer, let draining, let framesDone): heartbeat(peer, draining: draining, framesDone: framesDone)
        case .chunk(let peer, let key): chunk(from: peer, key)
        case .chunkStored(let peer, let key, let sha256, let rss): stored(key, from: peer, sha256: sha256, peakRSSKB: rss)
        case .chunkRejected(let peer, let key, let rejection):
            emit(.log(.warning, "rejected chunk \(key.shard) of job \(key.jobID) from \(name(peer)): \(rejection)", LogIDs(key, worker: name(peer))))
            failed(key, from: peer, code: .renderFailed, reason: "corrupt chunk: \(rejection)")
        case .chunkNotStored(let peer, let key, let reason): notStored(key, from: peer, reason: reason)
        case .failed(let peer, let key, let code, let reason):
            if mayReport(key, from: peer, what: "a failure") { failed(key, from: peer, code: code, reason: reason) }
        case .submitted(let job, let record): adopt(job, record: record)
        case .linking(let id, let shards): jobs[id]?.hold(shards)
        case .linkFailed(let id, let shards): jobs[id]?.release(shards)
        case .reused(let id, let chunks): reused(id, chunks)
        case .cancel(let id): if let job = jobs[id] { finish(job, .cancelled, error: nil) }
        case .reprioritize(let id, let priority): set(\.priority, of: id, to: priority, stored: .jobPriority(id, priority))
        case .setFarmPriority(let id, let priority): set(\.farmPriority, of: id, to: priority, stored: .jobFarmPriority(id, priority))
        case .assembled(let id, let error): if let job = jobs[id] { finish(job, error == nil ? .done : .failed, error: error) }
        case .sendFailed(let peer): sendFailed(peer)
        case .release(let workerID): release(workerID)
        case .mediaSent(let peer, let contentID, let range): mediaSent(range, of: contentID, to: peer)
        case .pause(let cause, let detail): pause(cause, detail)
        case .resume(let cause): resume(cause)
        case .tick:
            reapSilentWorkers()
            reviewHealth()
            if pauses.isEmpty { dispatch() }
        }
        for workerID in withdrawing.sorted() { withdrawAttempts(of: workerID) }
        withdrawing = []
        defer { effects = [] }
        return effects
    }

    mutating func emit(_ effect: Effect) { effects.append(effect) }
    mutating func persist(_ change: StoreChange) { effects.append(.persist(change)) }
    private func name(_ peer: PeerID) -> String { workers[peer]?.workerID ?? "?" }

    // MARK: Workers

    private mutating func hello(_ peer: PeerID, workerID: String, host: String, slots requested: Int,
                                encoders: [String: String]?, pools: Set<String>) {
        if let previous = workers.first(where: { $0.value.workerID == workerID && $0.key != peer })?.key {
            drop(previous, reason: "reconnected")
        }
        let slots = max(1, min(requested, 64))
        var state = workers[peer] ?? WorkerState(identity: peer, workerID: workerID, host: host, slots: slots, lastSeen: now)
        state.slots = slots
        state.lastSeen = now
        state.unreachable = false
        state.encoders = encoders
        state.pools = pools
        workers[peer] = state
        persist(.recordWorker(id: workerID, host: host, slots: slots, at: now))
        let pooled = pools.isEmpty ? "" : " in pool(s) \(pools.sorted().joined(separator: ", "))"
        emit(.log(.info, "worker \(workerID) on \(host) joined with \(slots) slot(s)\(pooled)", LogIDs(worker: workerID)))
        emit(.send(peer, .welcome))
    }

    private mutating func heartbeat(_ peer: PeerID, draining: Bool, framesDone: [AttemptID: Int]) {
        guard let worker = workers[peer] else {
            emit(.send(peer, .refused(FarmError(.unknownWorker, "unknown worker: say hello"))))
            return
        }
        // Only attempts it holds: a worker speaks for its own pace.
        for (key, frames) in framesDone.sorted(by: { ($0.key.jobID, $0.key.shard) < ($1.key.jobID, $1.key.shard) })
        where worker.running.contains(key) && jobs[key.jobID]?.running[key.shard]?[key.attempt] != nil {
            guard var job = jobs.removeValue(forKey: key.jobID) else { continue }
            let moved = job.running[key.shard]?[key.attempt]?.frames != max(0, frames)
            job.running[key.shard]?[key.attempt]?.frames = max(0, frames)
            job.running[key.shard]?[key.attempt]?.framesAt = now
            jobs[key.jobID] = job
            // Its watchers see the frames in progress (docs/operations.md, "The progress line").
            if moved { emit(.notify(key.jobID, final: false)) }
        }
        // A draining worker takes no more work; what it holds it finishes or hands back.
        if draining, worker.slots > 0 {
            workers[peer]?.slots = 0
            emit(.log(.info, "worker \(worker.workerID) is draining", LogIDs(worker: worker.workerID)))
        }
        emit(.send(peer, .heartbeat(busy: worker.running.count)))
    }

    /// What a worker's cache now holds, and what its attempt reading the medium has read.
    private mutating func mediaSent(_ range: Range<Int>, of contentID: String, to peer: PeerID) {
        guard workers[peer] != nil else { return }
        workers[peer]?.held[contentID, default: HeldBytes()].insert(range)
        guard let key = attempt(reading: contentID, peer: peer), jobs[key.jobID]?.running[key.shard]?[key.attempt] != nil, var job = jobs.removeValue(forKey: key.jobID) else { return }
        job.running[key.shard]?[key.attempt]?.read[contentID, default: HeldBytes()].insert(range)
        jobs[key.jobID] = job
    }

    /// The peer is gone or does not read: dropped at the next tick, after the rest of
    /// what it sent this turn.
    private mutating func sendFailed(_ peer: PeerID) {
        guard let worker = workers[peer], !worker.unreachable else { return }
        workers[peer]?.unreachable = true
        emit(.log(.warning, "worker \(worker.workerID) is unreachable or does not read", LogIDs(worker: worker.workerID)))
    }

    private mutating func reapSilentWorkers() {
        for (peer, worker) in workers {
            if worker.unreachable {
                drop(peer, reason: "unreachable or not reading")
            } else if now - worker.lastSeen > limits.workerTimeoutSeconds {
                drop(peer, reason: "silent for \(limits.workerTimeoutSeconds) s")
            }
        }
    }

    private mutating func drop(_ peer: PeerID, reason: String) {
        guard let worker = workers.removeValue(forKey: peer) else { return }
        emit(.log(.warning, "worker \(worker.workerID) is gone (\(reason)); \(worker.running.count) shard(s) back to the queue",
                   LogIDs(worker: worker.workerID)))
        for key in worker.running.sorted(by: { ($0.jobID, $0.shard) < ($1.jobID, $1.shard) }) {
            guard var job = jobs.removeValue(forKey: key.jobID) else { continue }
            job.running[key.shard]?[key.attempt] = nil
            persist(.endAttempt(key, .lost, message: reason, at: now))
            if job.state[key.shard] == .running, job.running[key.shard]?.isEmpty ?? true {
                job.set(key.shard, .queued)
                persist(.requeue(job: key.jobID, shard: key.shard))
            }
            jobs[key.jobID] = job
        }
    }

    /// A worker just quarantined: its running attempts are stopped and their shards
    /// queued for the others, since on this machine they are likely to fail too. Its slots
    /// free as it confirms each stop (its "cancelled" reports), as at a job's end.
    private mutating func withdrawAttempts(of workerID: String) {
        guard let (peer, worker) = workers.first(where: { $0.value.workerID == workerID }) else { return }
        for key in worker.running.sorted(by: { ($0.jobID, $0.shard) < ($1.jobID, $1.shard) }) {
            guard jobs[key.jobID]?.running[key.shard]?[key.attempt] != nil, var job = jobs.removeValue(forKey: key.jobID) else { continue }
            job.running[key.shard]?[key.attempt] = nil
            emit(.send(peer, .cancelShard(job: key.jobID, shard: key.shard)))
            persist(.endAttempt(key, .cancelled, message: "\(workerID) quarantined", at: now))
            requeueIfIdle(&job, key.shard)
            jobs[key.jobID] = job
        }
    }

    // MARK: Who may say what (docs/operations.md, "Trust")

    /// A shard's result is taken only from the registered worker that was given that
    /// attempt. Anyone else is refused and logged; a worker's result for an attempt it no
    /// longer holds is dropped.
    private mutating func mayReport(_ key: AttemptID, from peer: PeerID, what: String) -> Bool {
        guard let worker = workers[peer] else {
            // A worker reconnecting after a coordinator restart delivers results of attempts
            // this process never gave it: it is told to say hello, a stranger learns nothing.
            let line = "\(what) for shard \(key.shard) of job \(key.jobID) from a peer that is not a worker"
            emit(.logLimited(kind: "forged result", "refused \(line)", LogIDs(key)))
            emit(.send(peer, .refused(FarmError(.unknownWorker, "unknown worker: say hello (refused \(line))"))))
            return false
        }
        guard worker.running.contains(key) else {
            emit(.logLimited(kind: "stale result", "dropped \(what) for shard \(key.shard) of job \(key.jobID) from "
                + "\(worker.workerID): it does not hold attempt \(key.attempt)", LogIDs(key, worker: worker.workerID)))
            return false
        }
        return true
    }


    // MARK: Results

    private mutating func chunk(from peer: PeerID, _ key: AttemptID) {
        adoptIfOrphaned(key, from: peer)
        guard mayReport(key, from: peer, what: "a chunk") else { return }
        guard let job = jobs[key.jobID], job.running[key.shard]?[key.attempt] != nil else {
            workers[peer]?.running.remove(key)   // late: cancelled, or beaten by a backup
            return
        }
        emit(.storeChunk(peer, key))
    }

    /// A chunk a worker rendered for a coordinator that is gone (a leader that died, or
    /// this one before a restart), offered when the worker joined this one: taken as an
    /// attempt of this worker's if its shard waits in the queue, so nothing rendered is
    /// lost (docs/operations.md, "A standby coordinator"). A shard given out or done since
    /// keeps its own; the chunk is then dropped as any stale result is.
    private mutating func adoptIfOrphaned(_ key: AttemptID, from peer: PeerID) {
        guard let worker = workers[peer], !worker.running.contains(key), let job = jobs[key.jobID],
              job.state.indices.contains(key.shard), job.state[key.shard] == .queued, job.running[key.shard]?.isEmpty ?? true,
              key.attempt > 0, key.attempt <= (job.nextAttempt[key.shard] ?? 0), job.accepts(worker) else { return }
        start(key, on: peer)
        emit(.log(.info, "took shard \(key.shard) of job \(key.jobID) from \(worker.workerID), rendered for the coordinator before",
                  LogIDs(key, worker: worker.workerID)))
    }

    private mutating func stored(_ key: AttemptID, from peer: PeerID, sha256: String, peakRSSKB: Int?) {
        let workerID = name(peer)
        workers[peer]?.running.remove(key)
        guard let attempt = jobs[key.jobID]?.running[key.shard]?[key.attempt], var job = jobs.removeValue(forKey: key.jobID) else { return }
        job.running[key.shard]?[key.attempt] = nil
        if job.tasks.indices.contains(key.shard) { job.shardTimes.add(now - attempt.started, task: job.tasks[key.shard]) }
        emit(.log(.debug, "shard \(key.shard) of job \(key.jobID) done by \(workerID) in \(String(format: "%.2f", now - attempt.started)) s",
                  LogIDs(key, worker: workerID)))
        persist(.finishShard(key, sha256: sha256, by: .worker(workerID), at: now))
        job.set(key.shard, .done, by: .worker(workerID))
        for other in job.failedOn[key.shard] ?? [] where other != workerID { health[other]?.confirm(job: job.id, shard: key.shard) }
        if let peakRSSKB { job.workerPeakRSSKB = max(job.workerPeakRSSKB ?? 0, peakRSSKB) }
        // Other copies of this shard are no longer needed.
        for (attempt, other) in (job.running[key.shard] ?? [:]).sorted(by: { $0.key < $1.key }) {
            emit(.send(other.worker, .cancelShard(job: job.id, shard: key.shard)))
            persist(.endAttempt(AttemptID(jobID: job.id, shard: key.shard, attempt: attempt), .beaten, message: workerID, at: now))
        }
        job.running[key.shard] = nil
        assembleIfDone(&job)
        jobs[job.id] = job
        // Not final even with every chunk in: a final notice forgets the job's followers,
        // and they must still hear of the assembly's end (`finish`), not wait for their
        // own time-out to ask again (docs/scale.md, "Idle time between shards").
        emit(.notify(job.id, final: false))
    }

    /// The disk refused the chunk: the attempt is over and the job fails with the reason
    /// (docs/operations.md, "Disks") rather than being left running.
    private mutating func notStored(_ key: AttemptID, from peer: PeerID, reason: String) {
        let workerID = name(peer)
        workers[peer]?.running.remove(key)
        guard jobs[key.jobID]?.running[key.shard]?[key.attempt] != nil, var job = jobs.removeValue(forKey: key.jobID) else { return }
        job.running[key.shard]?[key.attempt] = nil
        persist(.endAttempt(key, .failed, message: "\(workerID): \(reason)", at: now))
        finish(job, .failed, error: FarmError(.ioFailed, reason))
    }

    private mutating func failed(_ key: AttemptID, from peer: PeerID, code: FarmErrorCode, reason: String) {
        let workerID = name(peer)
        workers[peer]?.running.remove(key)
        guard jobs[key.jobID]?.running[key.shard]?[key.attempt] != nil, var job = jobs.removeValue(forKey: key.jobID) else { return }
        job.running[key.shard]?[key.attempt] = nil
        var ended = false
        defer { if !ended { jobs[job.id] = job } }
        if code == .handedBack {
            // Not the shard's fault: queued again, not counted toward its failures.
            persist(.endAttempt(key, .handedBack, message: workerID, at: now))
            emit(.log(.info, "shard \(key.shard) of job \(job.id) handed back by \(workerID)", LogIDs(key, worker: workerID)))
            requeueIfIdle(&job, key.shard)
            return
        }
        let message = "\(workerID): \(reason)"
        persist(.endAttempt(key, .failed, message: message, at: now))
        if !code.failsTheJob { blame(workerID, for: key, failedBefore: job.failedOn[key.shard] ?? []) }
        job.failedOn[key.shard, default: []].insert(workerID)
        job.failures[key.shard, default: []].append(message)
        emit(.log(.warning, "shard \(key.shard) of job \(job.id) failed on \(workerID): \(reason)", LogIDs(key, worker: workerID)))
        guard job.state[key.shard] != .done else { return }
        if code.failsTheJob {
            ended = true
            finish(job, .failed, error: FarmError(code, "shard \(key.shard): \(reason)"))
            return
        }
        let failures = job.failures[key.shard] ?? []
        if (job.failedOn[key.shard]?.count ?? 0) >= limits.maxFailuresPerShard || failures.count >= limits.maxFailuresPerShard + 2 {
            ended = true
            finish(job, .failed, error: FarmError(code, "shard \(key.shard) failed \(failures.count) times: \(failures.joined(separator: "; "))"))
            return
        }
        requeueIfIdle(&job, key.shard)
    }

    private mutating func requeueIfIdle(_ job: inout ScheduledJob, _ shard: Int) {
        guard job.state[shard] != .done, job.running[shard]?.isEmpty ?? true else { return }
        job.set(shard, .queued)
        persist(.requeue(job: job.id, shard: shard))
    }

    // MARK: Jobs

    private mutating func adopt(_ job: ScheduledJob, record: JobStore.JobRecord?) {
        if let record { persist(.createJob(record, job.tasks)) }
        var job = job
        assembleIfDone(&job)
        jobs[job.id] = job
    }

    /// The job is taken out of the table once for all its chunks: 1,550 twins linked at
    /// once took the loop 22 ms one by one.
    private mutating func reused(_ id: String, _ chunks: [(shard: Int, sha256: String)]) {
        guard var job = jobs.removeValue(forKey: id) else { return }
        for (shard, sha256) in chunks where job.state.indices.contains(shard) && job.state[shard] == .queued {
            persist(.finishShard(AttemptID(jobID: id, shard: shard, attempt: 0), sha256: sha256, by: .reused, at: now))
            job.set(shard, .done, by: .reused)
        }
        assembleIfDone(&job)
        jobs[id] = job
    }

    /// A job whose every shard is done goes to assembly, once.
    private mutating func assembleIfDone(_ job: inout ScheduledJob) {
        guard job.allDone, job.phase != .assembling else { return }
        job.phase = .assembling
        persist(.jobPhase(job.id, .assembling, error: nil, finished: nil))
        emit(.assemble(job.id))
    }

    /// Ends a job: its running attempts are stopped on their workers (each slot is freed
    /// when its worker confirms, so a slot is never given out twice) and watchers get the
    /// final status.
    private mutating func finish(_ job: ScheduledJob, _ phase: JobPhase, error: FarmError?) {
        for (shard, attempts) in job.running.sorted(by: { $0.key < $1.key }) {
            for (attempt, run) in attempts.sorted(by: { $0.key < $1.key }) {
                emit(.send(run.worker, .cancelShard(job: job.id, shard: shard)))
                persist(.endAttempt(AttemptID(jobID: job.id, shard: shard, attempt: attempt), .cancelled,
                                    message: "job \(phase.rawValue)", at: now))
            }
        }
        persist(.jobPhase(job.id, phase, error: error, finished: now))
        jobs[job.id] = nil
        waiting[job.id] = nil
        for workerID in health.keys where health[workerID]?.strikes.contains(where: { $0.job == job.id }) ?? false {
            health[workerID]?.forgetUnconfirmed(job: job.id)
            review(workerID)
        }
        emit(.discardChunks(job.id))
        emit(.notify(job.id, final: true))
        emit(.log(phase == .failed ? .error : .info, "job \(job.id) \(phase.rawValue)\(error.map { ": \($0.message)" } ?? "")", LogIDs(job: job.id)))
    }

    /// A new priority of an unfinished job: it counts from the next dispatch.
    private mutating func set(_ priority: WritableKeyPath<ScheduledJob, Int>, of id: String, to value: Int, stored: StoreChange) {
        guard jobs[id].map({ $0[keyPath: priority] != value }) ?? false, var job = jobs.removeValue(forKey: id) else { return }
        job[keyPath: priority] = value
        jobs[id] = job
        persist(stored)
        emit(.log(.info, "job \(id): \(priority == \.priority ? "priority" : "farm priority") \(value)", LogIDs(job: id)))
        emit(.notify(id, final: false))
    }

    private mutating func pause(_ cause: PauseCause, _ detail: String) {
        guard pauses[cause] != detail else { return }
        pauses[cause] = detail
        emit(.log(.warning, "dispatch paused: \(detail)", .none))
    }

    private mutating func resume(_ cause: PauseCause) {
        guard pauses.removeValue(forKey: cause) != nil else { return }
        emit(.log(.info, pauses.isEmpty ? "dispatch resumed" : "dispatch still paused: \(paused?.message ?? "")", .none))
    }
}

// MARK: Dispatch

extension Scheduler {
    /// Credit-based: a worker holds at most `slots` shards. Each free slot goes to the
    /// tenant furthest below its share, and within it to its best job (`TenantLines`).
    mutating func dispatch() {
        moreToDispatch = false
        var given = 0
        // Recipe keys being rendered, gathered once and kept as shards go out.
        var inFlight = jobs.values.reduce(into: Set<String>()) { $0.formUnion($1.runningKeys.keys) }
        // Ranked once per dispatch, and each job moved as it is given a shard: ranking every
        // job for every free slot cost O(jobs log jobs) a slot (docs/operations.md, "Limits").
        var lines = TenantLines(dispatchable: jobs.values.filter(\.isDispatchable), all: jobs.values,
                                weights: limits.tenantWeights, served: served)
        var assigned = true
        while assigned {
            assigned = false
            // Most free slots first (then by id, so equal cases always go the same way); a
            // worker that cannot take anything does not stop the others.
            let ready = workers.values.filter { $0.free > 0 && !isQuarantined($0.workerID) }.sorted { ($0.free, $1.workerID) > ($1.free, $0.workerID) }
            for worker in ready.map(\.identity) {
                guard given < limits.dispatchesPerTick else {
                    moreToDispatch = true
                    return
                }
                if let (job, shard, line) = nextShard(for: worker, inFlight: inFlight, lines: lines) {
                    given += 1
                    if let key = jobs[job]?.recipeKey(shard) { inFlight.insert(key) }
                    assign(job: job, shard: shard, to: worker)
                    if let line {
                        servings += 1
                        lines.gave(line, job: job, serial: servings)
                        served[lines.lines[line].tenant] = servings
                    }
                    assigned = true
                }
            }
        }
        // A tenant with no job left has no turn to remember.
        if served.count > lines.lines.count { served = served.filter { tenant, _ in lines.lines.contains { $0.tenant == tenant } } }
        noteWaiting()
    }

    /// A job no connected worker may take waits, and says why in its status
    /// (docs/operations.md, "Pools"; docs/rendering.md, "HEVC output"). Watchers hear when
    /// the reason comes or goes.
    private mutating func noteWaiting() {
        var reasons: [String: String] = [:]
        for job in jobs.values where job.hasQueued && job.isDispatchable {
            if let why = whyNoWorker(for: job) { reasons[job.id] = why }
        }
        guard reasons != waiting else { return }
        for id in Set(reasons.keys).union(waiting.keys).sorted() where reasons[id] != waiting[id] {
            if let why = reasons[id] { emit(.logLimited(kind: "no worker", "job \(id) waits: \(why)", LogIDs(job: id))) }
            emit(.notify(id, final: false))
        }
        waiting = reasons
    }

    private func whyNoWorker(for job: ScheduledJob) -> String? {
        // Most jobs have a worker: found without looking at every worker.
        if workers.isEmpty || workers.values.contains(where: { job.accepts($0) && !isQuarantined($0.workerID) }) {
            return job.pool.flatMap { pool in workers.isEmpty ? "no worker in pool \(pool)" : nil }
        }
        let pooled = workers.values.filter { job.pool.map($0.pools.contains) ?? true }
        if let pool = job.pool, pooled.isEmpty { return "no worker in pool \(pool)" }
        guard pooled.contains(where: { job.accepts($0.encoders) }) else {
            let codec = job.spec.settings.videoCodec.rawValue
            return "no connected worker " + (job.encoderFingerprint.map { "whose \(codec) encoder agrees with its chunks' (fingerprint \($0))" }
                ?? "with a \(codec) encoder") + (job.pool.map { " in pool \($0)" } ?? "")
        }
        guard pooled.contains(where: { !isQuarantined($0.workerID) }) else {
            return "every worker " + (job.pool.map { "in pool \($0) " } ?? "") + "is quarantined"
        }
        return nil
    }

    /// `inFlight`: the recipe keys being rendered; a queued twin of one waits. `lines`: the
    /// tenants and their dispatchable jobs, in order (by id: a copy of a job held here would
    /// make each change below copy its arrays). The line is nil for a backup copy, which
    /// takes no tenant's turn: it runs only where nothing is queued.
    private mutating func nextShard(for peer: PeerID, inFlight: Set<String>, lines: TenantLines) -> (String, Int, Int?)? {
        guard let worker = workers[peer] else { return nil }
        let workerIDs = Set(workers.values.map(\.workerID))
        let order = lines.order
        for line in order {
            for id in lines.lines[line].jobs.lazy.map(\.id) {
                guard let ready = jobs[id], ready.hasQueued, ready.accepts(worker), var job = jobs.removeValue(forKey: id) else { continue }
                // Prefer a worker the shard has not failed on; retry on the same one only when no other is left.
                // A twin of a shard being rendered waits for its chunk (docs/rendering.md, "Twins").
                let failedOn = job.failedOn
                let keys = job.recipeKeys
                let shard = job.nextQueued { shard in
                    if keys.indices.contains(shard), inFlight.contains(keys[shard]) { return false }
                    guard let failed = failedOn[shard], failed.contains(worker.workerID) else { return true }
                    return workerIDs.isSubset(of: failed)
                }
                jobs[id] = job
                if let shard { return (id, shard, line) }
            }
        }
        let candidates = order.lazy.flatMap { lines.lines[$0].jobs.lazy.map(\.id) }
        return backupShard(for: worker, among: candidates).map { ($0.0, $0.1, nil) }
    }

    private mutating func assign(job id: String, shard: Int, to peer: PeerID) {
        guard let worker = workers[peer], var job = jobs.removeValue(forKey: id) else { return }
        let attempt = (job.nextAttempt[shard] ?? 0) + 1
        let key = AttemptID(jobID: id, shard: shard, attempt: attempt)
        job.nextAttempt[shard] = attempt
        let assignment = job.assignment(shard: shard, attempt: attempt)
        jobs[id] = job
        start(key, on: peer)
        emit(.log(.debug, "shard \(shard) of job \(id) to \(worker.workerID) (attempt \(attempt))", LogIDs(key, worker: worker.workerID)))
        emit(.send(peer, .shard(assignment)))
    }

    /// An attempt begins on a worker: given out now, or taken from a chunk it rendered for
    /// the coordinator before (`adoptIfOrphaned`). The first worker's encoder becomes the job's.
    private mutating func start(_ key: AttemptID, on peer: PeerID) {
        guard var worker = workers.removeValue(forKey: peer) else { return }
        guard var job = jobs.removeValue(forKey: key.jobID) else {
            workers[peer] = worker
            return
        }
        if job.encoderFingerprint == nil, let own = worker.encoders?[job.spec.settings.videoCodec.rawValue] {
            job.encoderFingerprint = own
        }
        job.set(key.shard, .running)
        job.running[key.shard, default: [:]][key.attempt] = RunningAttempt(worker: peer, started: now)
        if job.phase == .queued {
            job.phase = .rendering
            persist(.jobPhase(job.id, .rendering, error: nil, finished: nil))
        }
        jobs[job.id] = job
        worker.running.insert(key)
        workers[peer] = worker
        persist(.startAttempt(key, worker: worker.workerID, at: now))
    }
}
