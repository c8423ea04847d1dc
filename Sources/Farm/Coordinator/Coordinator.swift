import CZeroMQ
import Foundation
import Logging
import RenderEngine
import SessionKit
import Synchronization

/// The farm's coordinator (docs/operations.md): one ROUTER socket for workers and clients, a
/// single-threaded event loop, SQLite for every state change, credit-based dispatch.
public final class Coordinator {

    let options: Options
    let store: JobStore
    /// Syncs the store's commits off the loop.
    /// Syncs a SQLite store's commits off the loop; a PostgreSQL server syncs its own.
    let storeSyncer: StoreSyncer?
    let media: MediaStore
    /// Submissions are compiled on its thread, not on the loop.
    let compiler: SubmissionCompiler
    /// Uploads are probed on its thread when they complete.
    let prober: MediaProber
    /// Jobs of one file are assembled on its thread as their chunks arrive.
    let assemblyLane: AssemblyLane
    /// Assemblies of a file per segment and results sent to their URLs, a few at once.
    let finishing: LaneThreads<SharedQueue<@Sendable () -> Void>>
    /// The loop's blocking work: chunks, uploads, media blocks, sweeps.
    let ioLane: Lane<LaneOutcome>
    /// Clients' reads of many rows (pages of jobs, a batch's jobs, shard details, the
    /// workers), on threads of their own: twenty dashboards never hold a chunk's write or an
    /// upload's block behind their pages.
    let queryLane: Lane<LaneOutcome>
    /// Reads media blocks for workers on the I/O lane.
    let mediaReader: MediaReader
    let laneStore: LaneStore
    /// The query lane's own connection: its long reads never hold the I/O lane's.
    let queryStore: LaneStore
    /// Unfinished jobs of the last run being resumed on the I/O lane.
    var resumptions = Resumptions()
    /// Submissions being made into jobs, a slice each turn.
    var creations = JobCreations()
    /// `--trace`: jobs and attempts as JSON lines, for a capacity model (nil: off).
    let trace: AttemptTrace?
    /// Client keys that have sent files this run (the store keeps them too).
    let holders = MediaHolders()
    let chunkCache: ChunkCache
    private let context: ZMQContext
    private let socket: ZMQSocket
    private let authenticator: ZAPAuthenticator?
    /// Every decision about workers, jobs and shards (docs/architecture.md, "The scheduler").
    var scheduler: Scheduler
    var workers: [PeerID: WorkerState] { scheduler.workers }
    /// Thumbnail and frame requests on their way through workers.
    var stillsBroker = StillsBroker()
    /// URL media new to the farm, probed by the workers for the compile threads.
    let workerProbes: WorkerProbes
    /// Clients watching a job's progress.
    var watchers = JobWatchers()
    /// Assemblies run on their own threads: (job, error, seconds) for the event loop.
    let finishedAssemblies: Inbox<(String, FarmError?, Double, PublishedOutput?)>
    /// What the loop knows of jobs beside the scheduler: assembly times, peak memory,
    /// media sent, ends not committed yet.
    var ledger = JobLedger()
    /// When work reached the loop, for its lag.
    private var loopClock = LoopClock(now: 0, timerPeriod: 0.1)
    /// Wakes the loop's poll when a lane, a compile thread or an assembly has posted a result.
    let wakeup: Wakeup
    private var logLimiter = LogLimiter()
    var budget = PeerBudget()
    /// The payload of the chunk message being handled, for a `storeChunk` effect.
    var chunkAtHand: (ready: ChunkReady, payload: Data)?
    /// Store changes of this turn, and those the disk refused in earlier turns (written
    /// again, in order, until they commit).
    private var turnChanges: [StoreChange] = []
    var unsaved: [StoreChange] = []
    private var storeFailure: Error?
    var diskGuard: DiskGuard
    var housekeeping = Housekeeping()
    /// Frame rates of the farm, its jobs and workers, and the workers' memory.
    var activity = FarmActivity()
    /// Tenants whose shard gauges were last reported, so a tenant without jobs loses them.
    var reportedTenants: Set<String> = []
    /// Pools the last sample reported, so one whose workers all left reads 0.
    var reportedPools: Set<String> = []
    /// Pools of jobs the last sample reported.
    var reportedJobPools: Set<String> = []
    /// Where the coordinator is listening (after binding `*` ports).
    public private(set) var endpoint = ""
    let logger: Logger

    public init(options: Options, logger: Logger = Logger(label: "reel.coordinator", factory: { _ in SwiftLogNoOpLogHandler() })) throws {
        self.options = options
        self.logger = logger
        wakeup = try Wakeup()
        options.stop.wakes { [wakeup] in wakeup.signal() }
        workerProbes = WorkerProbes(wakes: wakeup)
        finishedAssemblies = Inbox(wakes: wakeup)
        let fm = FileManager.default
        for sub in ["chunks", "results", "media"] {
            try fm.createDirectory(at: options.stateDirectory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        diskGuard = DiskGuard(directory: options.stateDirectory.path, minimumFree: options.minimumFreeBytes)
        if case .sqlite(let path) = options.store {
            storeSyncer = try StoreSyncer(path: path) { [logger] line in logger.error("\(line)") }
        } else {
            storeSyncer = nil
        }
        store = try JobStore(at: options.store, syncedBy: storeSyncer, loop: true)
        if let lead = options.lead { try store.lead(lead.term, seconds: lead.seconds) }
        assemblyLane = AssemblyLane(wakes: wakeup) { [logger] line in logger.warning("\(line)") }
        for medium in options.knownMedia { try store.remember(medium) }
        media = try MediaStore(directory: options.stateDirectory.appendingPathComponent("media"), store: store,
                               roots: options.mediaRoots + (options.looks.map { [$0] } ?? []))
        mediaReader = try MediaReader(catalog: media.catalog, store: options.store)
        laneStore = try LaneStore(at: options.store)
        queryStore = try LaneStore(at: options.store)
        trace = try options.tracePath.map { try AttemptTrace(path: $0) { [logger] line in logger.error("\(line)") } }
        compiler = try SubmissionCompiler(context: SubmissionCompiler.Context(
            stateDirectory: options.stateDirectory, catalog: media.catalog, looks: options.looks, strictLooks: options.strictLooks,
            acceptsCallbacks: options.acceptsCallbacks, callbackPolicy: options.callbackPolicy, limits: options.jobLimits, origins: options.origins,
            plannedSlots: options.plannedSlots, workerProbes: workerProbes), store: options.store, holders: holders,
            wakes: wakeup)
        prober = try MediaProber(store: options.store) { [logger] line in
            logger.warning("\(line)")
        }
        chunkCache = try ChunkCache(directory: options.stateDirectory.appendingPathComponent("chunk-cache"),
                                    limitBytes: options.chunkCacheBytes)
        scheduler = Scheduler(limits: Scheduler.Limits(
            maxFailuresPerShard: options.maxFailuresPerShard, backupAfterSeconds: options.backupAfterSeconds,
            workerTimeoutSeconds: Double(options.heartbeatMillis * options.liveness) / 1000, tenantWeights: options.tenantWeights))
        ioLane = Lane(threads: Self.ioThreads, name: "io", wakeup: wakeup, nice: Self.laneNice)
        queryLane = Lane(threads: 2, name: "query", wakeup: wakeup, nice: Self.laneNice + 2)
        finishing = try LaneThreads(name: "finishing", count: Self.finishingThreads, queue: SharedQueue(), stackSize: 4 << 20,
                                    open: { _ in () }, handle: { _, work in work() })
        (context, socket, authenticator) = try Self.openSocket(options, logger: logger)
        // The store's unfinished jobs are read before the socket listens (their chunks are
        // checked later, on the I/O lane): peers wait in their own queues until then, and
        // from the bind on every wait counts as the loop's lag.
        try resume()
        try socket.bind(options.endpoint)
        endpoint = socket.lastEndpoint
        loopClock = LoopClock(now: Self.uptime, timerPeriod: 0.1)
    }

    public func stop() { options.stop.raise() }

    /// The socket workers and clients reach (not yet bound), under CURVE when configured;
    /// a standby's is the same (`Standby`). Sends never wait (a peer that does not read
    /// would stall every other), and each peer's outgoing queue is bounded: past it, what
    /// would be sent is dropped (docs/operations.md, "Trust"). Workers ask for one block at
    /// a time, clients too.
    static func openSocket(_ options: Options, logger: Logger) throws -> (ZMQContext, ZMQSocket, ZAPAuthenticator?) {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .router, sendTimeoutMillis: 0)
        try socket.set(ZMQ_SNDHWM, Coordinator.peerQueueLimit)
        var authenticator: ZAPAuthenticator?
        if let curve = options.curve {
            authenticator = try ZAPAuthenticator(context: context, authorized: Set(curve.authorized.keys), logger: logger)
            try socket.secure(curve)
        }
        return (context, socket, authenticator)
    }

    /// Messages queued to one peer at most (ZMQ_SNDHWM): 32 × a 4 MiB block bounds what a
    /// peer that never reads can make the coordinator hold.
    static let peerQueueLimit: Int32 = 32

    static var now: Double { Date().timeIntervalSince1970 }
    /// Threads of the I/O lane: SHA-256 and the page cache's copies run at a core each.
    static let ioThreads = min(4, max(2, ProcessInfo.processInfo.activeProcessorCount))
    /// The I/O lane's niceness: at 4 (CFS weight 423 against the loop's 1,024) its threads
    /// yield a core to the loop when both want one (docs/architecture.md, "Lanes").
    static let laneNice: Int32 = 4
    /// Finishing threads: one tenant's slow result upload holds one of them (and only its
    /// share of the origin connections).
    static let finishingThreads = 8
    /// Monotonic seconds, for the loop's waits.
    static var uptime: Double { ProcessInfo.processInfo.systemUptime }

    // MARK: Loop

    public func run() throws {
        log("coordinator listening on \(endpoint)\(options.curve.map { "; CURVE, \($0.authorized.count) authorized key(s)" } ?? "")")
        checkDisk(force: true)
        if let refused = options.loopPriority.apply() {
            log("the loop runs at the normal priority: the \(options.loopPriority.rawValue) policy was refused (\(refused))", level: .warning)
        }
        LoopGuard.enterLoop()
        options.readiness.set(true)
        defer {
            options.readiness.set(false)
            LoopGuard.leaveLoop()
            shutDown()
        }
        while !options.stop.isRaised {
            options.pulse.beat()
            let started = Self.uptime
            // Wakes for the periodic work when it is due, not up to a period late.
            // Shards left to give out (a tick gives at most `dispatchesPerTick`) go on the next turn at once.
            let untilDue = scheduler.moreToDispatch || !creations.isEmpty ? 0 : Int(((loopClock.timerDue - started) * 1000).rounded(.up))
            let readable = try ZMQSocket.poll([socket], wakeup: wakeup, timeoutMillis: min(100, max(0, untilDue)))[0]
            loopClock.polled(started: started, returned: Self.uptime)
            try turn(readable: readable)
        }
    }

    /// After the loop, however it ended: its stop, a lost lead, a failed socket.
    private func shutDown() {
        socket.close()
        compiler.shutDown()
        prober.shutDown()
        ioLane.shutDown()
        queryLane.shutDown()
        assemblyLane.shutDown()
        finishing.stop()
        trace?.close()
        authenticator?.stop()
    }

    /// One turn of the loop. Everything it changes is committed together: one sync for a
    /// batch of messages instead of one per message (each change stays atomic). A store
    /// that cannot write pauses dispatch and keeps the turn's changes for the next turn;
    /// the coordinator goes on serving (docs/operations.md, "Disks").
    private func turn(readable: Bool) throws {
        turnChanges = []
        storeFailure = nil
        var profile = TurnProfile(at: Self.uptime)
        defer {
            if let report = profile.slowReport { logLimited("slow turn", report) }
        }
        do {
            try store.batch {
                profile.lap(.begin, at: Self.uptime)
                for change in unsaved { write(change) }
                profile.lap(.pending, at: Self.uptime)
                budget.newTurn()
                if readable {
                    var handled = 0
                    while handled < 1000, let (frames, userID) = try socket.receiveWithUser() {
                        CoordinatorMetrics.bytesReceived.increment(by: frames.reduce(0) { $0 + $1.count })
                        options.loopLag.record(loopClock.messageWait(handledAt: Self.uptime))
                        let type = handle(frames, userID: userID)
                        profile.lap(.messages, type, at: Self.uptime)
                        handled += 1
                    }
                }
                for (label, outcome) in ioLane.take() + queryLane.take() {
                    apply(outcome)
                    profile.lap(.lane, label, at: Self.uptime)
                }
                collectAssemblies()
                profile.lap(.assemblies, at: Self.uptime)
                collectSubmissions()
                profile.lap(.submissions, at: Self.uptime)
                continueCreations()
                profile.lap(.batches, at: Self.uptime)
                checkDisk(force: false)
                profile.lap(.disk, at: Self.uptime)
                sweep()
                continuePruning()
                profile.lap(.sweep, at: Self.uptime)
                if let late = loopClock.timerFired(at: Self.uptime) { options.loopLag.record(late) }
                let effects = scheduler.handle(.tick, now: Self.now)
                profile.lap(.tick, "deciding", at: Self.uptime)
                apply(effects)
                profile.lap(.tick, "effects", at: Self.uptime)
                dispatchWorkerProbes()
                dispatchStills()
                profile.lap(.stills, at: Self.uptime)
                sampleGauges(now: Self.now)
                profile.lap(.gauges, at: Self.uptime)
                if let storeFailure { throw storeFailure }
            }
            profile.lap(.commit, at: Self.uptime)
            storeSyncer?.committed()
            unsaved = []
            ledger.committed()
            if scheduler.pauses[.storeUnwritable] != nil { apply(scheduler.handle(.resume(.storeUnwritable), now: Self.now)) }
        } catch let error as ZMQError {
            throw error
        } catch let lost as LeaseLost {
            log("\(lost): stopping at once, nothing of this turn was written or sent", level: .warning)
            throw lost
        } catch {
            unsaved = turnChanges
            apply(scheduler.handle(.pause(.storeUnwritable, detail: "the job store in \(options.stateDirectory.path) "
                + "cannot be written (\(error))"), now: Self.now))
        }
    }

    /// Writes one change inside the turn's transaction; after a failure the rest wait.
    private func write(_ change: StoreChange) {
        turnChanges.append(change)
        if case .jobPhase(let job, let phase, let error, let finished) = change, phase.isFinal {
            ledger.ended(job, phase, error: error, finished: finished)
        }
        guard storeFailure == nil else { return }
        do { try store.apply(change) } catch { storeFailure = error }
    }

    // MARK: Effects

    func apply(_ effects: [Scheduler.Effect]) {
        for effect in effects {
            switch effect {
            case .send(let peer, let message): send(message, to: peer)
            case .persist(let change):
                count(change)
                traceChange(change)
                write(change)
            case .storeChunk(let peer, let key):
                if let (ready, payload) = chunkAtHand { storeChunk(ready, payload: payload, from: peer, key) }
            case .assemble(let job): startAssembly(job)
            case .notify(let job, let final): notifyWatchers(job, force: final)
            case .log(let level, let line, let ids): log(line, ids, level: level)
            case .logLimited(let kind, let line, let ids): logLimited(kind, line, ids)
            case .discardChunks(let job): discardChunks(of: job)
            }
        }
    }

    private func send(_ message: Scheduler.Message, to peer: PeerID) {
        switch message {
        case .welcome: send(to: peer, .welcome, Welcome(heartbeatMillis: options.heartbeatMillis))
        case .heartbeat(let busy): send(to: peer, .heartbeat, Heartbeat(busy: busy))
        case .shard(let assignment): send(to: peer, .shard, assignment)
        case .cancelShard(let job, let shard): send(to: peer, .cancelShard, CancelShard(jobID: job, shard: shard))
        case .refused(let error): send(to: peer, .refused, error)
        }
    }


    func send<Body: Encodable>(to identity: Data, _ type: MessageType, _ body: Body, payload: [Data] = []) {
        do {
            send(try WireMessage(type, body, payload: payload), to: identity)
        } catch {
            logLimited("encode", "could not encode \(type.rawValue): \(error)")
        }
    }

    /// A message already encoded (on the I/O lane, for a large reply), sent to a peer.
    func send(_ message: WireMessage, to identity: Data) {
        let type = message.type
        do {
            try socket.send([.bytes(identity)] + message.frames)
            CoordinatorMetrics.bytesSent.increment(by: message.frames.reduce(0) { $0 + $1.byteCount })
        } catch {
            // ROUTER_MANDATORY: an unroutable peer is gone, and one whose queue is full does
            // not read; a worker is dropped at the end of the turn (its shards go back to the
            // queue), anyone else's reply is dropped.
            if workers[identity] != nil {
                apply(scheduler.handle(.sendFailed(identity), now: Self.now))
            } else {
                logLimited("send failed", "dropped \(type.rawValue) to a peer that is gone or does not read: \(error)")
            }
        }
    }

    /// The connected workers as the loop knows them; the shards each has done are the
    /// store's, added on the lane (`LaneStore.workerStatuses`).
    func workerStatuses() -> [WorkerStatus] {
        workers.values.sorted { $0.workerID < $1.workerID }.map {
            var status = WorkerStatus(workerID: $0.workerID, host: $0.host, slots: $0.slots, busy: $0.running.count,
                                      shardsDone: 0, lastHeartbeat: $0.lastSeen, alive: true,
                                      mediaBytesSent: ledger.mediaBytes.byWorker[$0.workerID] ?? 0,
                                      residentKB: activity.worker($0.workerID)?.residentKB,
                                      framesPerSecond: activity.worker($0.workerID)?.framesPerSecond ?? 0,
                                      cpuCores: activity.worker($0.workerID)?.cpuCores)
            status.pools = $0.pools.isEmpty ? nil : $0.pools.sorted()
            status.state = scheduler.availability(of: $0)
            if let health = scheduler.health[$0.workerID], let since = health.quarantinedAt {
                status.quarantinedUntil = since + scheduler.limits.quarantineSeconds
                status.quarantineReason = health.summary
            }
            return status
        }
    }

    func countMediaSent(_ bytes: Int, contentID: String, at offset: Int, to peer: PeerID) {
        guard bytes > 0, let worker = workers[peer] else { return }
        apply(scheduler.handle(.mediaSent(peer, contentID: contentID, range: offset..<offset + bytes), now: Self.now))
        ledger.mediaSent(Int64(bytes), to: worker.workerID, forJob: scheduler.job(reading: contentID, peer: peer))
    }

    func log(_ line: String, _ ids: LogIDs = .none, level: Logger.Level = .info) {
        logger.log(level, line, ids)
    }

    /// What a misbehaving peer can repeat is a warning at a limited rate per kind.
    func logLimited(_ kind: String, _ line: String, _ ids: LogIDs = .none) {
        let (write, suppressed) = logLimiter.allow(kind, now: Self.now)
        guard write else { return }
        log(line + (suppressed > 0 ? " (and \(suppressed) more like it)" : ""), ids, level: .warning)
    }

    /// Writes `change` to the trace, if tracing.
    private func traceChange(_ change: StoreChange) {
        trace?.record(change, tasks: { scheduler.jobs[$0]?.tasks }) { chunkPath(job: $0.jobID, shard: $0.shard).path }
    }

    func cancel(_ jobID: String, from identity: Data) throws {
        if resumptions.cancel(jobID) {
            // Cancelled as soon as its kept chunks are checked.
            send(to: identity, .statusReply, StatusReply(jobs: try statuses(jobID)))
            return
        }
        guard scheduler.jobs[jobID] != nil else {
            let known = try store.job(jobID) != nil
            throw known ? FarmError(.alreadyEnded, "job \(jobID) has already ended") : FarmError(.noSuchJob, "no job \(jobID)")
        }
        apply(scheduler.handle(.cancel(jobID), now: Self.now))
        send(to: identity, .statusReply, StatusReply(jobs: try statuses(jobID)))
    }

    func notifyWatchers(_ job: String, force: Bool = false) {
        let watching = watchers.due(job, now: Self.now, final: force)
        guard !watching.isEmpty else { return }
        do {
            guard let status = try statuses(job).first else { return }
            for watcher in watching { send(to: watcher, .progress, status) }
        } catch {
            logLimited("watch", "could not tell the followers of job \(job): \(error)")
        }
    }

}
