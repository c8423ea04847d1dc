import CZeroMQ
import Foundation
import Logging
import RenderEngine
import SessionKit
import Synchronization

/// The farm's coordinator (docs/operations.md): one ROUTER socket for workers and clients, a
/// single-threaded event loop, SQLite for every state change, credit-based dispatch.
public final class Coordinator {
    public struct Options: Sendable {
        public var endpoint: String
        public var stateDirectory: URL
        public var heartbeatMillis = 1000
        /// Missed heartbeats before a worker is dead.
        public var liveness = 3
        public var maxFailuresPerShard = 3
        public var backupAfterSeconds = 2.0
        /// Directories whose files submitted by path may be read in place.
        public var mediaRoots: [URL] = []
        /// The farm's looks directory: its looks replace a submission's (docs/filters.md).
        public var looks: URL?
        /// Refuse ReelFarm's stand-in images for the SDK's named looks.
        public var strictLooks = false
        /// Reads sources named by URL, to validate and plan (docs/operations.md, "Sources by URL").
        public var origins = OriginClient(policy: URLPolicy())
        /// CURVE keys and the allow-list; `nil` for a plain socket (loopback, or `--insecure`).
        public var curve: CurveServer?
        /// Finished chunks kept for reuse by later jobs (docs/rendering.md, "Reusing chunks").
        public var chunkCacheBytes: Int64 = 1 << 30
        /// Reuse chunks across owners (`--share-chunks`): faster for tenants with the same
        /// media, and a side channel between them (docs/rendering.md, "Reusing chunks").
        public var shareChunks = false
        /// How long a finished job's result (and unused uploads) are kept (docs/operations.md, "Housekeeping").
        public var keepResultsSeconds = 24 * 3600.0
        /// How long what is remembered of an ended job (its status, shards, attempts) is
        /// kept (docs/operations.md, "Housekeeping"); at least `keepResultsSeconds`.
        public var keepJobsSeconds = 30 * 86_400.0
        /// Free space kept in the state directory (docs/operations.md, "Disks").
        public var minimumFreeBytes: Int64 = 64 << 20
        /// Where the HTTP API in this process keeps uploads until they are whole, and hands
        /// them over from by path (docs/protocol.md, "Uploads").
        public var apiUploads: URL { stateDirectory.appendingPathComponent("api-uploads") }
        /// Ends `run()` when raised (from any thread).
        public var stop = StopSignal()
        /// Beats each turn of the loop, for `/healthz`.
        public var pulse = LoopPulse()
        /// How long the loop keeps work waiting (`reel_coordinator_loop_lag_seconds`).
        public var loopLag = LoopLag()
        /// The loop thread's scheduling policy (`--loop-priority`).
        public var loopPriority = LoopPriority.normal
        /// Jobs may name a callback URL: a webhook deliverer runs beside the coordinator
        /// (docs/api.md, "Webhooks").
        public var acceptsCallbacks = false
        /// Where callbacks may go: checked by name at submission (the deliverer checks
        /// the addresses at each attempt).
        public var callbackPolicy = URLPolicy()
        /// The largest job taken (`--max-segments`, `--max-shards`).
        public var jobLimits = JobLimits()
        /// `--planned-slots`: the render slots the farm is sized for; a job that does not say
        /// how long its shards are gets the length for that many (docs/scale.md). 0: 2 GOPs.
        public var plannedSlots = 0
        /// `--trace FILE`: one JSON line per job and per attempt (`AttemptTrace`).
        public var tracePath: String?
        /// Files in place whose content ids and probes this process already has (`reel
        /// render`'s embedded farm: the command loaded and hashed them): kept at start, so
        /// the job's compile neither hashes nor probes them again. Never from a peer.
        public var knownMedia: [KnownMedium] = []

        public init(endpoint: String, stateDirectory: URL) {
            self.endpoint = endpoint
            self.stateDirectory = stateDirectory
        }
    }

    let options: Options
    let store: JobStore
    /// Syncs the store's commits off the loop.
    let storeSyncer: StoreSyncer
    let media: MediaStore
    /// Submissions are compiled on its thread, not on the loop.
    let compiler: SubmissionCompiler
    /// Uploads are probed on its thread when they complete.
    let prober: MediaProber
    /// Jobs of one file are assembled on its thread as their chunks arrive.
    let assemblyLane: AssemblyLane
    /// The loop's blocking work: chunks, uploads, media blocks, sweeps.
    let ioLane: Lane<LaneOutcome>
    /// Reads media blocks for workers on the I/O lane.
    let mediaReader: MediaReader
    let laneStore: LaneStore
    /// Unfinished jobs of the last run whose kept chunks the I/O lane is checking, and
    /// those cancelled meanwhile (docs/operations.md, "Restarts").
    /// (job → the content ids it reads, which housekeeping keeps.)
    var resumingJobs: [String: Set<String>] = [:]
    var cancelledWhileResuming: Set<String> = []
    var priorityWhileResuming: [String: Int] = [:]
    /// Batches whose variants' jobs are being created, a slice each turn (docs/api.md, "Batches").
    var creatingBatches: [BatchCreation] = []
    /// When each job's last chunk was stored (its `finish` posted), for the assembly time.
    var assemblyStarted: [String: Date] = [:]
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
    private let finishedAssemblies: Inbox<(String, FarmError?, Double, PublishedOutput?)>
    /// How long each assembly took (seconds), and the workers' peak memory of finished jobs.
    var assemblyTimes: [String: Double] = [:]
    var finishedPeakRSS: [String: Int] = [:]
    /// Media bytes sent to workers since this process started.
    var mediaBytesSent = (byWorker: [String: Int64](), byJob: [String: Int64]())
    /// When work reached the loop, for its lag.
    private var loopClock = LoopClock(now: 0, timerPeriod: 0.1)
    /// Wakes the loop's poll when a lane, a compile thread or an assembly has posted a result.
    let wakeup: Wakeup
    private var logLimiter = LogLimiter()
    private var budget = PeerBudget()
    /// The payload of the chunk message being handled, for a `storeChunk` effect.
    var chunkAtHand: (ready: ChunkReady, payload: Data)?
    /// Store changes of this turn, and those the disk refused in earlier turns (written
    /// again, in order, until they commit).
    private var turnChanges: [StoreChange] = []
    var unsaved: [StoreChange] = []
    private var storeFailure: Error?
    /// Jobs that ended while their end is not committed yet: status tells the truth anyway.
    var endedUncommitted: [String: (phase: JobPhase, error: FarmError?, finished: Double?)] = [:]
    var diskGuard: DiskGuard
    var housekeeping = (lastSweep: 0.0, stateBytes: Int64?.none, sweeping: false)
    /// Frame rates of the farm, its jobs and workers, and the workers' memory.
    var activity = FarmActivity()
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
        storeSyncer = try StoreSyncer(path: options.stateDirectory.appendingPathComponent("farm.sqlite").path) { [logger] line in
            logger.error("\(line)")
        }
        store = try JobStore(path: options.stateDirectory.appendingPathComponent("farm.sqlite").path, syncedBy: storeSyncer)
        assemblyLane = AssemblyLane(wakes: wakeup) { [logger] line in logger.warning("\(line)") }
        for medium in options.knownMedia { try store.remember(medium) }
        media = try MediaStore(directory: options.stateDirectory.appendingPathComponent("media"), store: store,
                               roots: options.mediaRoots + (options.looks.map { [$0] } ?? []))
        mediaReader = try MediaReader(catalog: media.catalog, storePath: options.stateDirectory.appendingPathComponent("farm.sqlite").path)
        laneStore = try LaneStore(path: options.stateDirectory.appendingPathComponent("farm.sqlite").path)
        trace = try options.tracePath.map { try AttemptTrace(path: $0) }
        compiler = try SubmissionCompiler(context: SubmissionCompiler.Context(
            stateDirectory: options.stateDirectory, catalog: media.catalog, looks: options.looks, strictLooks: options.strictLooks,
            acceptsCallbacks: options.acceptsCallbacks, callbackPolicy: options.callbackPolicy, limits: options.jobLimits, origins: options.origins,
            plannedSlots: options.plannedSlots, workerProbes: workerProbes), storePath: options.stateDirectory.appendingPathComponent("farm.sqlite").path, holders: holders,
            wakes: wakeup)
        prober = try MediaProber(storePath: options.stateDirectory.appendingPathComponent("farm.sqlite").path) { [logger] line in
            logger.warning("\(line)")
        }
        chunkCache = try ChunkCache(directory: options.stateDirectory.appendingPathComponent("chunk-cache"),
                                    limitBytes: options.chunkCacheBytes)
        scheduler = Scheduler(limits: Scheduler.Limits(
            maxFailuresPerShard: options.maxFailuresPerShard, backupAfterSeconds: options.backupAfterSeconds,
            workerTimeoutSeconds: Double(options.heartbeatMillis * options.liveness) / 1000))
        ioLane = Lane(threads: Self.ioThreads, name: "io", wakeup: wakeup)
        context = try ZMQContext()
        // Sends never wait (a peer that does not read would stall every other), and each
        // peer's outgoing queue is bounded: past it, what would be sent is dropped
        // (docs/operations.md, "Trust"). Workers ask for one block at a time, clients too.
        socket = try ZMQSocket(context, .router, sendTimeoutMillis: 0)
        try socket.set(ZMQ_SNDHWM, Coordinator.peerQueueLimit)
        if let curve = options.curve {
            authenticator = try ZAPAuthenticator(context: context, authorized: Set(curve.authorized.keys), logger: logger)
            try socket.secure(curve)
        } else {
            authenticator = nil
        }
        // The store's unfinished jobs are read before the socket listens (their chunks are
        // checked later, on the I/O lane): peers wait in their own queues until then, and
        // from the bind on every wait counts as the loop's lag.
        try resume()
        try socket.bind(options.endpoint)
        endpoint = socket.lastEndpoint
        loopClock = LoopClock(now: Self.uptime, timerPeriod: 0.1)
    }

    public func stop() { options.stop.raise() }

    /// Messages queued to one peer at most (ZMQ_SNDHWM): 32 × a 4 MiB block bounds what a
    /// peer that never reads can make the coordinator hold.
    static let peerQueueLimit: Int32 = 32

    static var now: Double { Date().timeIntervalSince1970 }
    /// Threads of the I/O lane: SHA-256 and the page cache's copies run at a core each.
    static let ioThreads = min(4, max(2, ProcessInfo.processInfo.activeProcessorCount))
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
        defer { LoopGuard.leaveLoop() }
        while !options.stop.isRaised {
            options.pulse.beat()
            let started = Self.uptime
            // Wakes for the periodic work when it is due, not up to a period late.
            // Shards left to give out (a tick gives at most `dispatchesPerTick`) go on the next turn at once.
            let untilDue = scheduler.moreToDispatch ? 0 : Int(((loopClock.timerDue - started) * 1000).rounded(.up))
            let readable = try ZMQSocket.poll([socket], wakeup: wakeup, timeoutMillis: min(100, max(0, untilDue)))[0]
            loopClock.polled(started: started, returned: Self.uptime)
            try turn(readable: readable)
        }
        socket.close()
        compiler.shutDown()
        prober.shutDown()
        ioLane.shutDown()
        assemblyLane.shutDown()
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
                for (label, outcome) in ioLane.take() {
                    apply(outcome)
                    profile.lap(.lane, label, at: Self.uptime)
                }
                collectAssemblies()
                profile.lap(.assemblies, at: Self.uptime)
                collectSubmissions()
                profile.lap(.submissions, at: Self.uptime)
                continueBatches()
                profile.lap(.batches, at: Self.uptime)
                checkDisk(force: false)
                profile.lap(.disk, at: Self.uptime)
                sweep()
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
            storeSyncer.committed()
            unsaved = []
            endedUncommitted = [:]
            if scheduler.pauses[.storeUnwritable] != nil { apply(scheduler.handle(.resume(.storeUnwritable), now: Self.now)) }
        } catch let error as ZMQError {
            throw error
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
            endedUncommitted[job] = (phase, error, finished)
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

    /// Returns what the message was, for the turn's profile.
    private func handle(_ frames: [Data], userID: String?) -> String {
        guard frames.count >= 2 else { return "short" }
        let identity = frames[0]
        switch budget.admit(identity, now: Self.now) {
        case .accept: break
        case .ignore: return "ignored"
        case .cutOff:
            logLimited("cut off", "cut off a peer that sent over \(budget.messagesPerTurn) messages in one turn: "
                + "its messages are dropped for \(Int(budget.cutOffSeconds)) s")
            if workers[identity] != nil { apply(scheduler.handle(.sendFailed(identity), now: Self.now)) }
            return "cut off"
        }
        let message: WireMessage
        do {
            message = try WireMessage.parse(Array(frames.dropFirst()))
        } catch let mismatch as FarmError where mismatch.code == .versionMismatch {
            log("refused a peer: \(mismatch)", level: .warning)
            send(to: identity, .refused, mismatch)
            return "refused"
        } catch {
            logLimited("malformed", "dropped a malformed message: \(error)")
            send(to: identity, .error, FarmError.from(error, fallback: .malformed))
            return "malformed"
        }
        let credentials: PeerCredentials?
        if let curve = options.curve {
            // The handshake admitted only listed keys; the key's role decides what it may say.
            guard let key = userID, let role = curve.authorized[key] else {
                logLimited("no key", "refused \(message.type.rawValue) from a peer without an authorized key")
                send(to: identity, .refused, FarmError(.unauthorized, "this connection has no authorized key"))
                return "refused"
            }
            guard role.may(send: message.type) else {
                logLimited("wrong role", "refused \(message.type.rawValue) from \(role.rawValue) key \(key)")
                send(to: identity, .refused, FarmError(.forbidden, "a \(role.rawValue) key may not send \(message.type.rawValue)"))
                return "refused"
            }
            credentials = PeerCredentials(key: key, role: role)
        } else {
            credentials = nil
        }
        apply(scheduler.handle(.heard(identity), now: Self.now))   // any message is a heartbeat
        do {
            try route(message, from: identity, credentials: credentials)
        } catch {
            refuse(message.type, from: identity, error)
        }
        return message.type.rawValue
    }

    /// One handler per family of messages (docs/protocol.md): a worker's, a client's
    /// submission and media, a client's jobs, thumbnails and frames.
    private func route(_ message: WireMessage, from identity: Data, credentials: PeerCredentials?) throws {
        switch message.type {
        case .hello, .heartbeat, .chunk, .failed, .mediaRequest: try workerSaid(message, from: identity)
        case .submit, .upload, .adopt, .mediaQuery: try clientSent(message, from: identity, credentials: credentials)
        case .status, .watch, .cancel, .fetch, .deleteResult, .workers, .setPriority, .shards:
            try clientAsked(message, from: identity, credentials: credentials)
        case .stills, .jobStills, .stillsReply, .invalidate: try stillsMessage(message, from: identity, credentials: credentials)
        default:
            throw FarmError(.malformed, "unexpected \(message.type.rawValue) message")
        }
    }

    func send<Body: Encodable>(to identity: Data, _ type: MessageType, _ body: Body, payload: [Data] = []) {
        do {
            let message = try WireMessage(type, body, payload: payload)
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

    func workerStatuses() throws -> [WorkerStatus] {
        try workers.values.sorted { $0.workerID < $1.workerID }.map {
            WorkerStatus(workerID: $0.workerID, host: $0.host, slots: $0.slots, busy: $0.running.count,
                         shardsDone: try store.shardsDone(byWorker: $0.workerID), lastHeartbeat: $0.lastSeen, alive: true,
                         mediaBytesSent: mediaBytesSent.byWorker[$0.workerID] ?? 0,
                         residentKB: activity.worker($0.workerID)?.residentKB, framesPerSecond: activity.worker($0.workerID)?.framesPerSecond ?? 0,
                         cpuCores: activity.worker($0.workerID)?.cpuCores)
        }
    }

    // MARK: Who may do what (docs/operations.md, "Trust")

    /// Who must have sent a file's bytes before it learns the file is stored or renders it
    /// (docs/api.md, "Uploading media"): a client key itself; for an admin (the HTTP API's
    /// gateway among them) or any peer of a farm without keys, the holder it names for a
    /// client it serves (`token:NAME`), or nobody when it acts for itself.
    static func mustShowMedia(_ credentials: PeerCredentials?, naming named: String? = nil) -> String? {
        guard let credentials else { return named }
        switch credentials.role {
        case .client: return credentials.key
        case .admin: return named
        case .worker: return credentials.key   // never reached: a worker sends no client messages
        }
    }

    /// Under CURVE only the client that submitted a job, or an admin, may cancel or fetch it.
    /// `onBehalfOf`: the owner an admin (or a peer of a farm without keys: the HTTP API)
    /// acts for, who must own the job: the API's ownership check in the request's own round trip.
    func mayManage(_ jobID: String, _ credentials: PeerCredentials?, onBehalfOf: String? = nil) throws {
        let actsFor = credentials == nil || credentials?.role == .admin ? onBehalfOf : nil
        guard credentials != nil || actsFor != nil else { return }
        let owner: String?
        if let job = scheduler.jobs[jobID] {
            owner = job.owner
        } else if let record = try store.job(jobID) {
            owner = record.owner
        } else {
            return   // no such job: the request says so itself
        }
        if let actsFor {
            guard owner == actsFor else { throw FarmError(.notOwner, "job \(jobID) is another client's") }
        } else if let credentials, !credentials.role.mayManage(jobOwnedBy: owner, as: credentials.key) {
            logLimited("not owner", "refused a \(credentials.role.rawValue) key \(credentials.key) acting on job \(jobID) of another client")
            throw FarmError(.notOwner, "job \(jobID) belongs to another client")
        }
    }

    /// Media blocks go only to registered workers, and only of media that a shard or a
    /// still request they hold needs; a worker still fetching for work it no longer holds
    /// (cancelled, beaten by a backup) is told the media is not there, which ends its fetch.
    func mayRead(_ request: MediaRequest, from identity: Data) -> Bool {
        let contentID = request.contentID
        guard let worker = workers[identity] else {
            let line = "a media request from a peer that is not a worker"
            logLimited("forged media request", "refused \(line)")
            send(to: identity, .refused, FarmError(.unknownWorker, "unknown worker: say hello (refused \(line))"))
            return false
        }
        let forStill = stillsBroker.serves(identity, contentID: contentID)
        guard scheduler.job(reading: contentID, peer: identity) != nil || forStill else {
            logLimited("unneeded media", "\(worker.workerID) asked for \(contentID), which no work it holds needs")
            send(to: identity, .mediaBlock, MediaBlock(contentID: contentID, offset: request.offset, total: 0, missing: true),
                 payload: [Data()])
            return false
        }
        return true
    }

    /// An error as a peer may read it: the coordinator's own directories are not its
    /// business (docs/operations.md, "Trust"); content ids name the media.
    func publicText(_ error: Error) -> String { publicText("\(error)") }

    func publicText(_ message: String) -> String {
        let state = options.stateDirectory.standardizedFileURL
        return Self.scrub(message, naming: [(state.appendingPathComponent("media"), "the coordinator's media store"),
                                            (state, "the coordinator's state directory")]
                                           + options.mediaRoots.map({ ($0, "a media root") }))
    }

    /// `message` with each directory's path, and its `file://` URL, told by name instead:
    /// what a client may read of the coordinator's disk. The innermost first (`media`
    /// inside the state directory).
    static func scrub(_ message: String, naming directories: [(URL, String)]) -> String {
        var text = message
        for (directory, name) in directories {
            let path = directory.standardizedFileURL.path
            // As a URL the path would read `file://the coordinator's state directory/…`.
            text = text.replacingOccurrences(of: "file://" + path, with: name)
            text = text.replacingOccurrences(of: path, with: name)
        }
        return text
    }

    /// Media bytes sent, by worker id and by job (docs/operations.md, "Media").
    func countMediaSent(_ bytes: Int, contentID: String, to peer: PeerID) {
        guard bytes > 0, let worker = workers[peer] else { return }
        mediaBytesSent.byWorker[worker.workerID, default: 0] += Int64(bytes)
        if let job = scheduler.job(reading: contentID, peer: peer) { mediaBytesSent.byJob[job, default: 0] += Int64(bytes) }
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

    /// Writes `change` to the trace, if tracing; a trace that cannot be written stops, said once.
    private func traceChange(_ change: StoreChange) {
        guard let trace else { return }
        let failure = trace.record(change, tasks: { scheduler.jobs[$0]?.tasks }) { key in
            let path = chunkPath(job: key.jobID, shard: key.shard).path
            return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        }
        if let failure { log("the trace file cannot be written (\(failure)); tracing stops", level: .error) }
    }

    func chunkPath(job: String, shard: Int) -> URL {
        URL(fileURLWithPath: chunkDirectory(job) + Self.chunkName(shard))
    }

    /// Every chunk's path of a job of `count` shards. Made by joining strings: a URL and a
    /// `String(format:)` per shard took 60 ms of the loop for a job of 7,204 shards.
    func chunkPaths(job: String, count: Int) -> [String] {
        let directory = chunkDirectory(job)
        return (0..<count).map { directory + Self.chunkName($0) }
    }

    private func chunkDirectory(_ job: String) -> String {
        options.stateDirectory.appendingPathComponent("chunks/\(job)").path + "/"
    }

    /// `000042.mp4`: the shard's index, six digits at least.
    static func chunkName(_ shard: Int) -> String {
        let digits = String(shard)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".mp4"
    }

    /// A whole job's MP4 (its sidecar beside it), or a per-segment job's directory.
    func resultPath(job: String, layout: Plan.Layout = .whole) -> URL {
        options.stateDirectory.appendingPathComponent(layout == .whole ? "results/\(job).mp4" : "results/\(job)")
    }

    /// A job's live preview: its growing fMP4 file and index (docs/rendering.md, "Live preview").
    func previewDirectory(job: String) -> URL {
        options.stateDirectory.appendingPathComponent("previews/\(job)")
    }

    func cancel(_ jobID: String, from identity: Data) throws {
        if resumingJobs[jobID] != nil {
            // Cancelled as soon as its kept chunks are checked.
            cancelledWhileResuming.insert(jobID)
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

    // MARK: Assembly

    /// A job of one file is assembled on the lane from its first chunk on (docs/rendering.md,
    /// "Assembly"); called when the job is created or resumed, before the scheduler has it
    /// (which may ask for its end at once).
    func beginAssembly(of job: ScheduledJob) {
        guard job.spec.layout == .whole else { return }
        assemblyLane.post(.begin(job: job.id, spec: job.spec, output: resultPath(job: job.id, layout: .whole).path,
                                 preview: previewDirectory(job: job.id).path, chunks: chunkPaths(job: job.id, count: job.spec.tasks.count)))
    }

    /// Every chunk is stored: the lane writes the index of a job of one file; a job of one
    /// file per segment is assembled now on a thread of its own.
    func startAssembly(_ id: String) {
        guard let job = scheduler.jobs[id] else { return }
        let spec = job.spec
        if spec.layout == .whole {
            assemblyStarted[id] = Date()
            assemblyLane.post(.finish(job: id))
            return
        }
        let chunks = chunkPaths(job: id, count: job.tasks.count)
        let output = resultPath(job: id, layout: spec.layout).path
        let finished = finishedAssemblies
        let thread = Thread {
            let started = Date()
            do {
                try spec.assemble(to: output) { chunks[$0] }
                finished.post((id, nil, Date().timeIntervalSince(started), nil))
            } catch {
                finished.post((id, FarmError(.renderFailed, "assembly failed: \(error)"), Date().timeIntervalSince(started), nil))
            }
        }
        thread.start()
    }

    /// Sends an assembled result where its job asked (docs/api.md, "Output to a URL"), on
    /// a thread of its own: the job is done only once it is there.
    private func publish(_ id: String, to destination: OutputTarget, owner: String?, assembledIn seconds: Double) {
        let output = resultPath(job: id, layout: .whole).path
        let finished = finishedAssemblies
        // One tenant's hanging upload targets hold only its share of the connections.
        let origins = options.origins.onBehalf(of: owner ?? "")
        let thread = Thread {
            let started = Date()
            do {
                let published = try origins.publish(output, sidecar: Sidecar.path(for: output), to: destination)
                finished.post((id, nil, seconds + Date().timeIntervalSince(started), published))
            } catch {
                unlink(output)
                unlink(Sidecar.path(for: output))
                finished.post((id, FarmError(FarmErrorCode.of(error), "sending the result failed: \(error)"),
                               seconds + Date().timeIntervalSince(started), nil))
            }
        }
        thread.start()
    }

    /// Assemblies the lane has finished: published first where the job asked.
    private func collectLane() {
        for done in assemblyLane.finished.take() {
            guard let job = scheduler.jobs[done.job] else { continue }
            // From the last chunk stored: the lane's queue, the index and the sidecar.
            let seconds = assemblyStarted.removeValue(forKey: done.job).map { Date().timeIntervalSince($0) } ?? 0
            log(String(format: "job %@: index written %.3f s after the last chunk; %.2f s writing the file in all", done.job, seconds, done.writing),
                LogIDs(job: done.job), level: .debug)
            if done.error == nil, let destination = job.spec.destination {
                publish(done.job, to: destination, owner: job.owner, assembledIn: seconds)
            } else {
                finishedAssemblies.post((done.job, done.error.map { FarmError(.renderFailed, $0) }, seconds, nil))
            }
        }
    }

    private func collectAssemblies() {
        collectLane()
        for (id, error, seconds, published) in finishedAssemblies.take() {
            guard let job = scheduler.jobs[id] else { continue }
            if let published {
                do {
                    try store.setPublished(id, String(decoding: try JSONEncoder().encode(published), as: UTF8.self))
                    log("job \(id) sent to \(published.url) (\(published.bytes) bytes, sha256 \(published.sha256))", LogIDs(job: id))
                } catch {
                    log("job \(id): could not record where its result went: \(error)", LogIDs(job: id), level: .warning)
                }
            }
            assemblyTimes[id] = seconds
            CoordinatorMetrics.assembly.recordSeconds(seconds)
            if let rss = job.workerPeakRSSKB { finishedPeakRSS[id] = rss }
            log("job \(id) assembled in \(String(format: "%.2f", seconds)) s", LogIDs(job: id))
            apply(scheduler.handle(.assembled(id, error: error), now: Self.now))
        }
    }

}

/// A flag one thread raises and a loop on another checks.
public final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)
    private let wakes = Mutex<[@Sendable () -> Void]>([])
    public init() {}

    public func raise() {
        flag.store(true, ordering: .relaxed)
        for wake in wakes.withLock({ $0 }) { wake() }
    }

    public var isRaised: Bool { flag.load(ordering: .relaxed) }

    /// Calls `wake` when the signal is raised (at once if it is already): a loop that polls
    /// returns then, not at its poll's time-out (`reel render` stops its farm in
    /// milliseconds, not in two 100-ms polls).
    public func wakes(_ wake: @escaping @Sendable () -> Void) {
        wakes.withLock { $0.append(wake) }
        if isRaised { wake() }
    }
}
