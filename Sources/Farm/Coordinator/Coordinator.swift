import CZeroMQ
import Foundation
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
        /// CURVE keys and the allow-list; `nil` for a plain socket (loopback, or `--insecure`).
        public var curve: CurveServer?
        /// Ends `run()` when raised (from any thread).
        public var stop = StopSignal()

        public init(endpoint: String, stateDirectory: URL) {
            self.endpoint = endpoint
            self.stateDirectory = stateDirectory
        }
    }

    let options: Options
    let store: JobStore
    let media: MediaStore
    private let context: ZMQContext
    private let socket: ZMQSocket
    private let authenticator: ZAPAuthenticator?
    var workers: [Data: WorkerState] = [:]
    var jobs: [String: ActiveJob] = [:]
    var pendingStills: [String: PendingStills] = [:]
    /// Assemblies run on their own threads: (job, error, seconds) for the event loop.
    private let finishedAssemblies = Inbox<(String, String?, Double)>()
    /// How long each assembly took (seconds), and the workers' peak memory of finished jobs.
    var assemblyTimes: [String: Double] = [:]
    var finishedPeakRSS: [String: Int] = [:]
    private var lastWatchUpdate: [String: Double] = [:]
    private var logLimiter = LogLimiter()
    /// Where the coordinator is listening (after binding `*` ports).
    public let endpoint: String
    let log: @Sendable (String) -> Void

    public init(options: Options, log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.options = options
        self.log = log
        let fm = FileManager.default
        for sub in ["chunks", "results", "media"] {
            try fm.createDirectory(at: options.stateDirectory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        store = try JobStore(path: options.stateDirectory.appendingPathComponent("farm.sqlite").path)
        media = try MediaStore(directory: options.stateDirectory.appendingPathComponent("media"), store: store,
                               roots: options.mediaRoots + (options.looks.map { [$0] } ?? []))
        context = try ZMQContext()
        // Sends never wait (a peer that does not read would stall every other), and each
        // peer's outgoing queue is bounded: past it, what would be sent is dropped
        // (docs/operations.md, "Trust"). Workers ask for one block at a time, clients too.
        socket = try ZMQSocket(context, .router, sendTimeoutMillis: 0)
        try socket.set(ZMQ_SNDHWM, Coordinator.peerQueueLimit)
        if let curve = options.curve {
            authenticator = try ZAPAuthenticator(context: context, authorized: curve.authorized, log: log)
            try socket.secure(curve)
        } else {
            authenticator = nil
        }
        try socket.bind(options.endpoint)
        endpoint = socket.lastEndpoint
        try resume()
    }

    public func stop() { options.stop.raise() }

    /// Messages queued to one peer at most (ZMQ_SNDHWM): 32 × a 4 MiB block bounds what a
    /// peer that never reads can make the coordinator hold.
    static let peerQueueLimit: Int32 = 32

    static var now: Double { Date().timeIntervalSince1970 }

    // MARK: Loop

    public func run() throws {
        log("coordinator listening on \(endpoint)\(options.curve.map { "; CURVE, \($0.authorized.count) authorized key(s)" } ?? "")")
        while !options.stop.isRaised {
            let readable = try ZMQSocket.poll([socket], timeoutMillis: 100)[0]
            // Everything one turn of the loop changes is committed together: one sync for a
            // batch of messages instead of one per message (each change stays atomic).
            do {
                try store.batch {
                    if readable {
                        var handled = 0
                        while handled < 1000, let frames = try socket.receive() {
                            handle(frames)
                            handled += 1
                        }
                    }
                    reapDeadWorkers()
                    collectAssemblies()
                    dispatchStills()
                    dispatch()
                }
            } catch {
                log("could not commit the job store: \(error)")
                throw error
            }
        }
        socket.close()
        authenticator?.stop()
    }

    private func handle(_ frames: [Data]) {
        guard frames.count >= 2 else { return }
        let identity = frames[0]
        let message: WireMessage
        do {
            message = try WireMessage.parse(Array(frames.dropFirst()))
        } catch let mismatch as VersionMismatch {
            log("refused a peer: \(mismatch)")
            send(to: identity, .refused, Refusal(message: mismatch.description))
            return
        } catch {
            logLimited("malformed", "dropped a malformed message: \(error)")
            send(to: identity, .error, ErrorReply(message: "\(error)"))
            return
        }
        workers[identity]?.lastSeen = Self.now   // any message is a heartbeat
        do {
            try route(message, from: identity)
        } catch {
            logLimited("failed \(message.type.rawValue)", "\(message.type.rawValue) from a peer failed: \(error)")
            send(to: identity, .error, ErrorReply(message: "\(error)"))
        }
    }

    private func route(_ message: WireMessage, from identity: Data) throws {
        switch message.type {
        case .hello: try hello(message.decode(Hello.self), from: identity)
        case .heartbeat:
            if workers[identity] == nil {
                send(to: identity, .refused, Refusal(message: "unknown worker: say hello"))
            } else {
                // A draining worker takes no more work; what it holds it finishes or hands back.
                if (try? message.decode(Heartbeat.self))?.draining == true, let worker = workers[identity], worker.slots > 0 {
                    workers[identity]?.slots = 0
                    log("worker \(worker.workerID) is draining")
                }
                send(to: identity, .heartbeat, Heartbeat(busy: workers[identity]?.running.count ?? 0))
            }
        case .chunk:
            let ready = try message.decode(ChunkReady.self)
            guard mayReport(ready.jobID, ready.shard, ready.attempt, from: identity, what: "a chunk") else { return }
            try chunk(ready, payload: message.payload.first ?? Data(), from: identity)
        case .failed:
            let failure = try message.decode(ShardFailed.self)
            guard mayReport(failure.jobID, failure.shard, failure.attempt, from: identity, what: "a failure") else { return }
            try failed(failure, from: identity)
        case .mediaRequest:
            let request = try message.decode(MediaRequest.self)
            guard mayRead(request, from: identity) else { return }
            let candidate = jobs.values.lazy.compactMap { job in
                job.assignment.files.first { $0.value == request.contentID }.flatMap { job.assignment.paths[$0.key] }
            }.first
            let (block, data) = media.block(request, candidate: candidate)
            send(to: identity, .mediaBlock, block, payload: [data])
        case .submit: try submit(message.decode(Submit.self), from: identity)
        case .upload:
            let upload = try message.decode(Upload.self)
            let (received, complete) = try media.receive(upload, data: message.payload.first ?? Data())
            send(to: identity, .uploaded, Uploaded(contentID: upload.contentID, received: received, complete: complete))
        case .status:
            let request = try message.decode(StatusRequest.self)
            send(to: identity, .statusReply, StatusReply(jobs: try statuses(request.jobID)))
        case .watch:
            let request = try message.decode(JobRequest.self)
            guard let status = try statuses(request.jobID).first else { throw ProtocolError("no job \(request.jobID)") }
            if let job = jobs[request.jobID] { job.watchers.insert(identity) }
            send(to: identity, .progress, status)
        case .cancel: try cancel(message.decode(JobRequest.self).jobID, from: identity)
        case .fetch: try fetch(message.decode(FetchRequest.self), from: identity)
        case .workers: send(to: identity, .workersReply, WorkersReply(workers: workerStatuses()))
        case .stills: try stills(message.decode(StillsRequest.self), from: identity)
        case .stillsReply: stillsReply(try message.decode(StillsReply.self), payload: message.payload, from: identity)
        case .invalidate: invalidate(try message.decode(InvalidateRequest.self), from: identity)
        default:
            throw ProtocolError("unexpected \(message.type.rawValue) message")
        }
    }

    func send<Body: Encodable>(to identity: Data, _ type: MessageType, _ body: Body, payload: [Data] = []) {
        do {
            let message = try WireMessage(type, body, payload: payload)
            try socket.send([.bytes(identity)] + message.frames)
        } catch {
            // ROUTER_MANDATORY: an unroutable peer is gone, and one whose queue is full does
            // not read; a worker's shards go back to the queue, anyone else is dropped.
            if let worker = workers[identity] {
                if !worker.unreachable { log("send \(type.rawValue) to a worker failed: \(error)") }
                workers[identity]?.unreachable = true
            } else {
                logLimited("send failed", "dropped \(type.rawValue) to a peer that is gone or does not read: \(error)")
            }
        }
    }

    // MARK: Workers

    private func hello(_ hello: Hello, from identity: Data) throws {
        guard hello.engineVersion == EngineVersion.engine else {
            send(to: identity, .refused, Refusal(message: "engine version \(hello.engineVersion) differs from the coordinator's \(EngineVersion.engine)"))
            return
        }
        if let previous = workers.first(where: { $0.value.workerID == hello.workerID && $0.key != identity })?.key {
            dropWorker(previous, reason: "reconnected")
        }
        let slots = max(1, min(hello.slots, 64))
        var state = workers[identity] ?? WorkerState(identity: identity, workerID: hello.workerID, host: hello.host, slots: slots, lastSeen: Self.now)
        state.slots = slots
        state.lastSeen = Self.now
        workers[identity] = state
        try store.recordWorker(id: hello.workerID, host: hello.host, slots: slots, at: Self.now)
        log("worker \(hello.workerID) on \(hello.host) joined with \(slots) slot(s)")
        send(to: identity, .welcome, Welcome(heartbeatMillis: options.heartbeatMillis))
    }

    private func reapDeadWorkers() {
        let limit = Double(options.heartbeatMillis * options.liveness) / 1000
        let now = Self.now
        for (identity, worker) in workers {
            if worker.unreachable {
                dropWorker(identity, reason: "unreachable or not reading")
            } else if now - worker.lastSeen > limit {
                dropWorker(identity, reason: "missed \(options.liveness) heartbeats")
            }
        }
    }

    private func dropWorker(_ identity: Data, reason: String) {
        guard let worker = workers.removeValue(forKey: identity) else { return }
        log("worker \(worker.workerID) is gone (\(reason)); \(worker.running.count) shard(s) back to the queue")
        for key in worker.running {
            guard let job = jobs[key.job] else { continue }
            job.running[key.shard]?[key.attempt] = nil
            try? store.endAttempt(job: key.job, shard: key.shard, attempt: key.attempt, outcome: "lost", message: reason,
                                  at: Self.now, requeue: false)
            if job.state[key.shard] == .running, job.running[key.shard]?.isEmpty ?? true {
                job.set(key.shard, .queued)
                try? store.requeueShard(job: key.job, shard: key.shard)
            }
        }
    }

    func workerStatuses() -> [WorkerStatus] {
        workers.values.sorted { $0.workerID < $1.workerID }.map {
            WorkerStatus(workerID: $0.workerID, host: $0.host, slots: $0.slots, busy: $0.running.count,
                         shardsDone: (try? store.shardsDone(byWorker: $0.workerID)) ?? 0, lastHeartbeat: $0.lastSeen, alive: true)
        }
    }

    // MARK: Dispatch

    /// Credit-based: a worker holds at most `slots` shards. Higher priority first; jobs of
    /// equal priority share workers (the one with fewer running shards goes next).
    private func dispatch() {
        var assigned = true
        while assigned {
            assigned = false
            // Most free slots first; a worker that cannot take anything does not stop the others.
            for identity in workers.filter({ $0.value.free > 0 }).sorted(by: { $0.value.free > $1.value.free }).map(\.key) {
                if let (job, shard) = nextShard(for: identity) {
                    assign(job: job, shard: shard, to: identity)
                    assigned = true
                }
            }
        }
    }

    private func nextShard(for identity: Data) -> (ActiveJob, Int)? {
        guard let worker = workers[identity] else { return nil }
        let candidates = jobs.values.filter { $0.phase == "rendering" || $0.phase == "queued" }
            .sorted { ($0.priority, -$0.runningCount, -$0.created) > ($1.priority, -$1.runningCount, -$1.created) }
        for job in candidates {
            // Prefer a worker the shard has not failed on; retry on the same one only when no other is left.
            if let shard = job.nextQueued(where: { shard in
                guard let failed = job.failedOn[shard], failed.contains(worker.workerID) else { return true }
                return workers.values.allSatisfy { failed.contains($0.workerID) }
            }) {
                return (job, shard)
            }
        }
        // Nothing queued: back up the slowest running shard near the end of a job (first valid chunk wins).
        let now = Self.now
        for job in candidates where !job.hasQueued {
            let slow = job.running.filter { shard, attempts in
                attempts.count == 1 && attempts.values.allSatisfy { $0.worker != identity && now - $0.started > options.backupAfterSeconds }
            }.min { ($0.value.values.first?.started ?? 0) < ($1.value.values.first?.started ?? 0) }
            if let shard = slow?.key { return (job, shard) }
        }
        return nil
    }

    private func assign(job: ActiveJob, shard: Int, to identity: Data) {
        guard var worker = workers[identity] else { return }
        let attempt = (job.nextAttempt[shard] ?? 0) + 1
        job.nextAttempt[shard] = attempt
        var assignment = job.assignment
        assignment.shard = shard
        assignment.attempt = attempt
        assignment.task = job.tasks[shard]
        job.set(shard, .running)
        job.running[shard, default: [:]][attempt] = (identity, Self.now)
        if job.phase == "queued" {
            job.phase = "rendering"
            try? store.setJobState(job.id, "rendering")
        }
        worker.running.insert(AttemptKey(job: job.id, shard: shard, attempt: attempt))
        workers[identity] = worker
        try? store.startAttempt(job: job.id, shard: shard, attempt: attempt, worker: worker.workerID, at: Self.now)
        send(to: identity, .shard, assignment)
    }

    // MARK: Who may say what (docs/operations.md, "Trust")

    /// A shard's result is taken only from the registered worker that was given that
    /// attempt. Its own late result (a cancelled or beaten attempt) frees its slot and is
    /// dropped; anyone else is refused and logged.
    private func mayReport(_ jobID: String, _ shard: Int, _ attempt: Int, from identity: Data, what: String) -> Bool {
        let key = AttemptKey(job: jobID, shard: shard, attempt: attempt)
        guard let worker = workers[identity] else {
            refuse(identity, kind: "forged result", "\(what) for shard \(shard) of job \(jobID) from a peer that is not a worker")
            return false
        }
        guard worker.running.contains(key) else {
            logLimited("stale result", "dropped \(what) for shard \(shard) of job \(jobID) from \(worker.workerID): "
                + "it does not hold attempt \(attempt)")
            return false
        }
        return true
    }

    /// Media blocks go only to registered workers, and only of media that a shard or a
    /// still request they hold needs; a worker still fetching for work it no longer holds
    /// (cancelled, beaten by a backup) is told the media is not there, which ends its fetch.
    private func mayRead(_ request: MediaRequest, from identity: Data) -> Bool {
        let contentID = request.contentID
        guard let worker = workers[identity] else {
            refuse(identity, kind: "forged media request", "a media request from a peer that is not a worker")
            return false
        }
        let forShard = worker.running.contains { key in jobs[key.job]?.assignment.files.values.contains(contentID) ?? false }
        let forStill = pendingStills.values.contains { $0.worker == identity && $0.request.files.values.contains(contentID) }
        guard forShard || forStill else {
            logLimited("unneeded media", "\(worker.workerID) asked for \(contentID), which no work it holds needs")
            send(to: identity, .mediaBlock, MediaBlock(contentID: contentID, offset: request.offset, total: 0, missing: true),
                 payload: [Data()])
            return false
        }
        return true
    }

    /// Refuses what a peer that has not said `hello` sent. A worker reconnecting after a
    /// coordinator restart delivers results of attempts this process never gave it: it is
    /// told to say hello (and its shard is rendered again), a stranger learns nothing more.
    private func refuse(_ identity: Data, kind: String, _ message: String) {
        logLimited(kind, "refused \(message)")
        send(to: identity, .refused, Refusal(message: "unknown worker: say hello (refused \(message))"))
    }

    func logLimited(_ kind: String, _ line: String) {
        let (write, suppressed) = logLimiter.allow(kind, now: Self.now)
        guard write else { return }
        log(line + (suppressed > 0 ? " (and \(suppressed) more like it)" : ""))
    }

    // MARK: Results

    private func chunk(_ ready: ChunkReady, payload: Data, from identity: Data) throws {
        let key = AttemptKey(job: ready.jobID, shard: ready.shard, attempt: ready.attempt)
        workers[identity]?.running.remove(key)
        guard let job = jobs[ready.jobID], job.running[ready.shard]?[ready.attempt] != nil else { return }   // late or cancelled
        job.running[ready.shard]?[ready.attempt] = nil
        let workerID = workers[identity]?.workerID ?? "?"
        if job.state[ready.shard] == .done { return }   // a backup copy already won
        // Verify before accepting: the LZ4 checksum, then SHA-256 of the bytes.
        let bytes: Data
        do {
            bytes = try LZ4Frame.decompress(payload, limit: 1 << 30)
            guard bytes.count == ready.size, Digest.sha256(bytes) == ready.sha256 else {
                throw ProtocolError("chunk does not match its SHA-256")
            }
        } catch {
            log("rejected chunk \(ready.shard) of job \(ready.jobID) from \(workerID): \(error)")
            try failed(ShardFailed(jobID: ready.jobID, shard: ready.shard, attempt: ready.attempt, reason: "corrupt chunk: \(error)"),
                       from: identity, alreadyRemoved: true)
            return
        }
        do {
            try writeChunk(bytes, to: chunkPath(job: job.id, shard: ready.shard))
        } catch {
            // The attempt is over either way; a disk that cannot hold the chunk fails the job
            // with the reason (docs/operations.md, "Disks") rather than leaving it running.
            let directory = chunkPath(job: job.id, shard: ready.shard).deletingLastPathComponent().path
            let reason = "cannot store the \(bytes.count)-byte chunk of shard \(ready.shard) in \(directory): \(error)"
            try store.endAttempt(job: job.id, shard: ready.shard, attempt: ready.attempt, outcome: "failed",
                                 message: "\(workerID): \(reason)", at: Self.now, requeue: false)
            finish(job, state: "failed", error: reason)
            return
        }
        try store.finishShard(job: job.id, shard: ready.shard, attempt: ready.attempt, sha256: ready.sha256, worker: workerID, at: Self.now)
        job.set(ready.shard, .done, worker: workerID)
        if let rss = ready.peakRSSKB { job.workerPeakRSSKB = max(job.workerPeakRSSKB ?? 0, rss) }
        // Other copies of this shard are no longer needed.
        for (_, other) in job.running[ready.shard] ?? [:] {
            send(to: other.worker, .cancelShard, CancelShard(jobID: job.id, shard: ready.shard))
        }
        job.running[ready.shard] = nil
        notifyWatchers(job, force: job.allDone)
        if job.allDone { startAssembly(job) }
    }

    private func failed(_ failure: ShardFailed, from identity: Data, alreadyRemoved: Bool = false) throws {
        let key = AttemptKey(job: failure.jobID, shard: failure.shard, attempt: failure.attempt)
        let workerID = workers[identity]?.workerID ?? "?"
        workers[identity]?.running.remove(key)
        guard let job = jobs[failure.jobID], alreadyRemoved || job.running[failure.shard]?[failure.attempt] != nil else { return }
        job.running[failure.shard]?[failure.attempt] = nil
        if failure.reason == ShardFailed.handedBack {
            // Not the shard's fault: queued again, not counted toward its failures.
            try store.endAttempt(job: job.id, shard: failure.shard, attempt: failure.attempt, outcome: "handed back",
                                 message: workerID, at: Self.now, requeue: false)
            log("shard \(failure.shard) of job \(job.id) handed back by \(workerID)")
            if job.state[failure.shard] != .done, job.running[failure.shard]?.isEmpty ?? true {
                job.set(failure.shard, .queued)
                try store.requeueShard(job: job.id, shard: failure.shard)
            }
            return
        }
        try store.endAttempt(job: job.id, shard: failure.shard, attempt: failure.attempt, outcome: "failed",
                             message: "\(workerID): \(failure.reason)", at: Self.now, requeue: false)
        job.failedOn[failure.shard, default: []].insert(workerID)
        log("shard \(failure.shard) of job \(job.id) failed on \(workerID): \(failure.reason)")
        guard job.state[failure.shard] != .done else { return }
        let failures = try store.failures(job: job.id, shard: failure.shard)
        if (job.failedOn[failure.shard]?.count ?? 0) >= options.maxFailuresPerShard || failures.count >= options.maxFailuresPerShard + 2 {
            let messages = failures.map(\.message).joined(separator: "; ")
            finish(job, state: "failed", error: "shard \(failure.shard) failed \(failures.count) times: \(messages)")
            return
        }
        if job.running[failure.shard]?.isEmpty ?? true {
            job.set(failure.shard, .queued)
            try store.requeueShard(job: job.id, shard: failure.shard)
        }
    }

    /// Writes a verified chunk under a temporary name and renames it into place. No fsync:
    /// a restart re-verifies every kept chunk against the SHA-256 in the store and renders
    /// again whatever a crash lost, so the sync that matters is the store's.
    private func writeChunk(_ bytes: Data, to path: URL) throws {
        let directory = path.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.path) {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        try TemporaryOutput.write(to: path.path) { try bytes.write(to: URL(fileURLWithPath: $0)) }
    }

    func chunkPath(job: String, shard: Int) -> URL {
        options.stateDirectory.appendingPathComponent("chunks/\(job)/\(String(format: "%06d", shard)).mp4")
    }

    func resultPath(job: String) -> URL {
        options.stateDirectory.appendingPathComponent("results/\(job).mp4")
    }

    private func cancel(_ jobID: String, from identity: Data) throws {
        guard let job = jobs[jobID] else {
            let known = try store.job(jobID) != nil
            send(to: identity, .error, ErrorReply(message: known ? "job \(jobID) has already ended" : "no job \(jobID)"))
            return
        }
        // Running attempts stop on their workers; each slot is freed when its worker confirms
        // (its "cancelled" failure), so a slot is never given out twice.
        for (shard, attempts) in job.running {
            for (_, run) in attempts { send(to: run.worker, .cancelShard, CancelShard(jobID: jobID, shard: shard)) }
        }
        job.running = [:]
        finish(job, state: "cancelled", error: nil)
        send(to: identity, .statusReply, StatusReply(jobs: try statuses(jobID)))
    }

    /// Ends a job; its watchers get the final status.
    func finish(_ job: ActiveJob, state: String, error: String?) {
        try? store.setJobState(job.id, state, error: error, finished: Self.now)
        job.phase = state
        notifyWatchers(job, force: true)
        jobs[job.id] = nil
        log("job \(job.id) \(state)\(error.map { ": \($0)" } ?? "")")
    }

    func notifyWatchers(_ job: ActiveJob, force: Bool = false) {
        guard !job.watchers.isEmpty else { return }
        let now = Self.now
        if !force, let last = lastWatchUpdate[job.id], now - last < 0.2 { return }
        lastWatchUpdate[job.id] = now
        guard let status = try? statuses(job.id).first else { return }
        for watcher in job.watchers { send(to: watcher, .progress, status) }
    }

    // MARK: Assembly

    func startAssembly(_ job: ActiveJob) {
        job.phase = "assembling"
        try? store.setJobState(job.id, "assembling")
        let chunks = job.tasks.enumerated().filter { $0.element.kind == .video }.map {
            Assembler.VideoChunk(path: chunkPath(job: job.id, shard: $0.offset).path, outputStartFrame: $0.element.outputStartFrame,
                                 frameCount: $0.element.frameCount)
        }
        let audio = job.tasks.firstIndex { $0.kind == .audio }.map { chunkPath(job: job.id, shard: $0).path }
        let output = resultPath(job: job.id).path
        let assignment = job.assignment
        let id = job.id
        let finished = finishedAssemblies
        let thread = Thread {
            let started = Date()
            do {
                let session = try SessionDocument.decode(Data(assignment.session.utf8))
                let frameDuration = try Self.frameDuration(of: assignment)
                let location = session.video?.videoSegments.lazy.compactMap(\.location).first ?? session.location
                try Assembler(frameDuration: frameDuration, creationDate: session.dateCreated, location: location)
                    .assemble(video: chunks, audio: audio, to: output)
                try Self.sidecar(for: assignment, session: session, output: output)
                finished.post((id, nil, Date().timeIntervalSince(started)))
            } catch {
                finished.post((id, "assembly failed: \(error)", Date().timeIntervalSince(started)))
            }
        }
        thread.start()
    }

    private func collectAssemblies() {
        let done = finishedAssemblies.take()
        for (id, error, seconds) in done {
            guard let job = jobs[id] else { continue }
            assemblyTimes[id] = seconds
            if let rss = job.workerPeakRSSKB { finishedPeakRSS[id] = rss }
            log("job \(id) assembled in \(String(format: "%.2f", seconds)) s")
            finish(job, state: error == nil ? "done" : "failed", error: error)
        }
    }

    static func frameDuration(of assignment: ShardAssignment) throws -> Rational {
        guard let fd = assignment.output.frameDuration.rational else { throw ProtocolError("job has no frame duration") }
        return fd
    }

    static func sidecar(for assignment: ShardAssignment, session: Session, output: String) throws {
        let sidecar = Sidecar(formatIdentifier: session.formatIdentifier, formatVersion: session.formatVersion,
                              engineVersion: EngineVersion.engine, encoder: assignment.settings, sources: assignment.files,
                              output: assignment.output, session: session)
        try sidecar.encoded().write(to: URL(fileURLWithPath: Sidecar.path(for: output)), options: .atomic)
    }
}

/// A flag one thread raises and a loop on another checks.
public final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func raise() { flag.store(true, ordering: .relaxed) }
    public var isRaised: Bool { flag.load(ordering: .relaxed) }
}
