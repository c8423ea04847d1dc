import CZeroMQ
import Foundation
import Logging
import Metrics
import RenderEngine
import SessionKit

/// A farm worker (docs/operations.md): a DEALER that announces itself, heartbeats, renders up to
/// `slots` shards at once on its own threads, sends LZ4 chunks, fetches media it cannot
/// read, and reconnects with backoff when the coordinator goes away.
public final class Worker {

    let options: Options
    let context: ZMQContext
    var socket: ZMQSocket
    let cache: WorkerMediaCache
    let results = Inbox<(key: AttemptID, outcome: Outcome)>()
    var running: [AttemptID: Date] = [:] {
        didSet { busySlots.set(running.count) }
    }
    /// How many slots render, for the still thread's choice of frame threads.
    let busySlots = SlotGauge()
    /// Raised to stop a running shard (cancel, or a backup copy that won elsewhere).
    var stopFlags: [AttemptID: StopSignal] = [:]
    /// Frames each running attempt has encoded, for the heartbeat.
    var framesDone: [AttemptID: FramesDone] = [:]
    var waiting: [Waiting] = []                  // for media
    let stills: StillThread
    /// Signalled by render and still threads when a result is ready.
    let wakeup: Wakeup
    var fetches: [String: (handle: FileHandle, received: Int)] = [:]
    /// A video shard's source is read by ranges: only the blocks its demuxer touches.
    let ranges: RangeFetcher
    /// Media read by ranges, per running shard: their blocks stay in the cache meanwhile.
    var runningRemote: [AttemptID: Set<String>] = [:]
    var runningMedia: Set<String> { runningRemote.values.reduce(into: []) { $0.formUnion($1) } }
    var lastHeard = Date()
    /// Chunks to offer again to the next coordinator this worker joins.
    lazy var unconfirmed = UnconfirmedChunks(confirmSeconds: 2 * Double(options.heartbeatMillis) / 1000)
    var lastSent = Date.distantPast
    var lastSample = Date.distantPast
    var welcomed = false
    var backoff = 1.0
    /// The coordinator this worker talks to now: `options.endpoint` or one of its standbys.
    var coordinator: String
    /// Every line carries this worker's id (docs/operations.md, "Logs").
    let logger: Logger
    let scratch: URL

    public init(options: Options, logger: Logger = Logger(label: "reel.worker", factory: { _ in SwiftLogNoOpLogHandler() })) throws {
        self.options = options
        var logger = logger
        logger[metadataKey: "worker"] = .string(options.workerID)
        self.logger = logger
        context = try ZMQContext()
        socket = try Self.connect(context, options.endpoint, curve: options.curve)
        coordinator = options.endpoint
        cache = try WorkerMediaCache(directory: options.cacheDirectory, limit: options.cacheLimit)
        scratch = options.cacheDirectory.appendingPathComponent("work-\(options.workerID)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        wakeup = try Wakeup()
        options.stop.wakes { [wakeup] in wakeup.signal() }
        ranges = RangeFetcher(directory: options.cacheDirectory, wakeup: wakeup)
        stills = try StillThread(directory: options.cacheDirectory.appendingPathComponent("stills"), limit: options.stillCacheLimit,
                                 workerID: options.workerID, renderLog: options.renderLog, origins: options.origins,
                                 wakeup: wakeup, busySlots: busySlots, logger: logger)
    }

    deinit { stills.shutDown() }

    /// Work that waits for its media: a shard, or a still request.
    enum Waiting {
        case shard(ShardAssignment)
        case stills(StillsRequest)

        var files: [String: String] {
            switch self {
            case .shard(let a): return a.spec.files
            case .stills(let r): return r.files
            }
        }

        var paths: [String: String] {
            switch self {
            case .shard(let a): return a.paths
            case .stills(let r): return r.paths
            }
        }
    }

    static func connect(_ context: ZMQContext, _ endpoint: String, curve: CurveClient?) throws -> ZMQSocket {
        let socket = try ZMQSocket(context, .dealer, sendTimeoutMillis: 1000)
        try socket.set(ZMQ_RECONNECT_IVL, Int32(200))
        if let curve { try socket.secure(curve) }
        try socket.connect(endpoint)
        return socket
    }

    public func stop() { options.stop.raise() }

    public func run() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        sendHello()
        var drainDeadline: Date?
        while !options.stop.isRaised {
            if let parent = options.parentPID, getppid() != parent {
                logger.info("parent process \(parent) is gone; leaving")
                break
            }
            if options.drain.isRaised {
                if drainDeadline == nil {
                    drainDeadline = Date().addingTimeInterval(options.drainSeconds)
                    logger.info("draining: \(running.count) shard(s) running, up to \(Int(options.drainSeconds)) s")
                    handBackWaiting()
                    send(.heartbeat, Heartbeat(busy: running.count, draining: true))
                }
                if running.isEmpty { break }
                if let deadline = drainDeadline, Date() >= deadline {
                    for flag in stopFlags.values { flag.raise() }   // their results are hand-backs
                }
            }
            if try ZMQSocket.poll([socket], wakeup: wakeup, timeoutMillis: 100)[0] {
                while let frames = try socket.receive() { try handle(frames) }
            }
            for request in ranges.takeRequests() { send(.mediaRequest, request) }
            for result in results.take() { deliver(result) }
            for (reply, pictures) in stills.take() { send(.stillsReply, reply, payload: pictures.map { .bytes($0) }) }
            options.pulse.beat()
            if Date().timeIntervalSince(lastSample) >= 1 {
                lastSample = Date()
                WorkerMetrics.sample(busy: running.count)
            }
            if Date().timeIntervalSince(lastSent) * 1000 >= Double(options.heartbeatMillis) {
                var heartbeat = Heartbeat(busy: running.count, draining: options.drain.isRaised ? true : nil,
                                          residentKB: ProcessMemory.residentKB, cpuSeconds: ProcessMemory.cpuSeconds)
                let pace = framesDone.compactMap { key, frames in
                    frames.value > 0 ? AttemptFrames(jobID: key.jobID, shard: key.shard, attempt: key.attempt, frames: frames.value) : nil
                }
                heartbeat.framesDone = pace.isEmpty ? nil : pace.sorted { ($0.jobID, $0.shard) < ($1.jobID, $1.shard) }
                send(.heartbeat, heartbeat)
            }
            if Date().timeIntervalSince(lastHeard) * 1000 > Double(options.heartbeatMillis * options.liveness) {
                try reconnect()
            }
        }
        socket.close()
        stills.shutDown()
    }

    /// Paranoid Pirate: a silent coordinator means a new socket and a new hello, after a
    /// growing pause (1 s … 16 s). Given standbys, the worker turns to the next coordinator
    /// (`notLeader`: at once, and a short pause once every coordinator has said so).
    func reconnect(notLeader: Bool = false) throws {
        let next = FarmEndpoint.next(after: coordinator, in: options.endpoints)
        // The pause comes once a round, back at the first coordinator: the next one is tried at once.
        let roundDone = next == options.endpoint
        let pause = !roundDone ? 0 : notLeader ? 0.5 : backoff
        if notLeader {
            logger.info("the coordinator at \(coordinator) stands by; trying \(next)")
        } else {
            logger.warning("coordinator at \(coordinator) silent; trying \(next) in \(pause) s")
            if roundDone { backoff = min(backoff * 2, 16) }
        }
        socket.close()
        Thread.sleep(forTimeInterval: pause)
        coordinator = next
        socket = try Self.connect(context, next, curve: options.curve)
        welcomed = false
        lastHeard = Date()
        for (_, fetch) in fetches { try? fetch.handle.close() }
        fetches = [:]
        sendHello()
    }

    func sendHello() {
        send(.hello, Hello(workerID: options.workerID, host: ProcessInfo.processInfo.hostName, slots: options.slots,
                           capabilities: ["video", "audio", "stills"], engineVersion: EngineVersion.engine,
                           encoders: EncoderFingerprint.all, pools: options.pools.isEmpty ? nil : options.pools))
    }

    func send<Body: Encodable>(_ type: MessageType, _ body: Body, payload: [ZMQSocket.Frame] = []) {
        do {
            let message = try WireMessage(type, body)
            try socket.send([.bytes(message.header())] + payload)
            lastSent = Date()
        } catch {
            logger.warning("send \(type.rawValue) failed: \(error)")
        }
    }

    /// One message from the coordinator. Only a refusal of this worker (another protocol
    /// or engine version, a key it will not take) ends the worker; anything else that fails
    /// fails the one shard or request it concerns, and the worker goes on.
    func handle(_ frames: [Data]) throws {
        lastHeard = Date()
        let message: WireMessage
        do {
            message = try WireMessage.parse(frames)
        } catch let error as FarmError where error.code == .versionMismatch {
            logger.error("coordinator message refused: \(error)")
            throw error
        } catch {
            logger.error("dropped a message from the coordinator: \(error)")
            return
        }
        if message.type == .refused {
            let refusal = try message.decode(FarmError.self)
            if refusal.code == .notLeader { return try reconnect(notLeader: true) }
            guard refusal.code == .unknownWorker else {
                throw FarmError(refusal.code, "coordinator refused this worker: \(refusal.message)")
            }
            sendHello()
            return
        }
        unconfirmed.heard(from: coordinator, at: lastHeard)
        do {
            try process(message)
        } catch {
            logger.error("\(message.type.rawValue) from the coordinator failed: \(error)")
        }
    }

    func process(_ message: WireMessage) throws {
        switch message.type {
        case .welcome:
            welcomed = true
            backoff = 1
            // Rendered for the coordinator before this one, or before it restarted: offered again.
            for chunk in unconfirmed.takeForResending() {
                send(.chunk, chunk.ready, payload: [.owned(chunk.buffer)])
                unconfirmed.sent(chunk.ready, chunk.buffer, to: coordinator, at: Date())
            }
            logger.info("joined the farm at \(coordinator) as \(options.workerID)")
            // A coordinator that restarted (or dropped this worker) never answers what was asked
            // of the one before: ask again, now that it knows this worker.
            ranges.askAgain()
        case .heartbeat: break
        case .shard:
            let assignment = try message.decode(ShardAssignment.self)
            if options.drain.isRaised {
                send(.failed, ShardFailed(jobID: assignment.jobID, shard: assignment.shard, attempt: assignment.attempt,
                                          code: .handedBack, reason: "handed back: the worker is shutting down"))
            } else {
                accept(.shard(assignment))
            }
        case .stills: accept(.stills(try message.decode(StillsRequest.self)))
        case .invalidate: stills.post(.invalidate(try message.decode(InvalidateRequest.self).contentIDs))
        case .mediaBlock:
            let block = try message.decode(MediaBlock.self), data = message.payload.first ?? Data()
            if ranges.deliver(block, data: data) {
                cache.delivered(data.count, keeping: Set(waiting.flatMap { $0.files.values }).union(runningMedia))
            } else {
                received(block, data: data)
            }
        case .cancelShard:
            let cancel = try message.decode(CancelShard.self)
            waiting.removeAll { if case .shard(let a) = $0 { a.jobID == cancel.jobID && a.shard == cancel.shard } else { false } }
            // A running render stops within a frame; its "cancelled" failure frees the slot
            // on the coordinator.
            for (key, flag) in stopFlags where key.jobID == cancel.jobID && key.shard == cancel.shard { flag.raise() }
        case .error:
            let error = try message.decode(FarmError.self)
            logger.warning("coordinator error (\(error.code.rawValue)): \(error.message)")
        default:
            logger.debug("ignored \(message.type.rawValue)")
        }
    }

    // MARK: Rendering

    func start(_ assignment: ShardAssignment, files: [String: URL], remote: [String: String]) {
        let key = assignment.attemptID
        running[key] = Date()
        runningRemote[key] = Set(remote.values)
        let stop = StopSignal()
        stopFlags[key] = stop
        let frames = FramesDone()
        framesDone[key] = frames
        let options = self.options
        let results = self.results
        let chunk = scratch.appendingPathComponent("\(assignment.jobID)-\(assignment.shard)-\(assignment.attempt).mp4").path
        let wakeup = self.wakeup
        let ranges = self.ranges
        let logger = self.logger
        let ids = LogIDs(job: assignment.jobID, shard: assignment.shard, attempt: assignment.attempt)
        logger.log(.debug, "rendering shard \(assignment.shard) of job \(assignment.jobID) (attempt \(assignment.attempt))", ids)
        let thread = Thread {
            // Audio reads its samples, which lie between the video's: only they are fetched ahead.
            let readAhead: MediaReadAhead = assignment.spec.task.kind == .video ? .contiguous : .expectedOnly
            let sources = RemoteSources(remote, fetcher: ranges, stop: stop, readAhead: readAhead)
            results.post((key, Self.render(assignment, files: files, sources: sources, chunk: chunk, options: options, stop: stop,
                                           frames: frames)))
            if let line = sources.summary(shard: assignment.shard) { logger.log(.info, line, ids) }
            wakeup.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
    }

    enum Outcome: Sendable {
        case chunk(ChunkReady, OwnedBuffer)
        case failed(ShardFailed)
    }

    static func render(_ a: ShardAssignment, files: [String: URL], sources: RemoteSources, chunk: String,
                               options: Options, stop: StopSignal, frames: FramesDone) -> Outcome {
        let started = Date()
        defer { unlink(chunk) }
        do {
            if let log = options.renderLog { try appendLine("\(a.jobID) \(a.shard) \(a.attempt) \(options.workerID)", to: log) }
            if options.failAlways { throw EngineError("this worker was started with --fail-always") }
            if options.shardDelayMillis > 0 { try pause(milliseconds: options.shardDelayMillis, unless: stop) }
            var media: [String: MediaInput] = [:]
            for (reference, reader) in try sources.open() { media[reference] = .ranges(reader, name: reference) }
            media.merge(a.spec.originInputs(client: options.origins)) { $1 }
            for (reference, url) in files where a.spec.media.contains(reference) { media[reference] = .file(url.path) }
            let threads = ShardThreads.sharing(cores: ProcessInfo.processInfo.activeProcessorCount, among: options.slots,
                                               decodeThreads: options.decodeThreads)
            let stats = try ShardRenderer.render(a.spec, media: media, assets: try a.spec.loadAssets(from: files), to: chunk,
                                                 threads: threads) { step in
                frames.add(step)
                if stop.isRaised { throw RenderCancelled() }
            }
            WorkerMetrics.record(stats)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: chunk))
            let compressed = try LZ4Frame.compress(bytes)
            if options.corruptChunks, compressed.count > 32 {
                let p = compressed.pointer.baseAddress!.assumingMemoryBound(to: UInt8.self)
                p[compressed.count / 2] ^= 0xFF
            }
            var ready = ChunkReady(jobID: a.jobID, shard: a.shard, attempt: a.attempt, sha256: Digest.sha256(bytes),
                                   size: bytes.count, millis: Int(Date().timeIntervalSince(started) * 1000))
            ready.peakRSSKB = ProcessMemory.peakKB
            return .chunk(ready, compressed)
        } catch {
            return .failed(ShardFailed(jobID: a.jobID, shard: a.shard, attempt: a.attempt, code: FarmErrorCode.of(error), reason: "\(error)"))
        }
    }

    /// Shards still waiting for media go back to the coordinator at once.
    func handBackWaiting() {
        for case .shard(let a) in waiting {
            send(.failed, ShardFailed(jobID: a.jobID, shard: a.shard, attempt: a.attempt, code: .handedBack,
                                      reason: "handed back: the worker is shutting down"))
        }
        waiting.removeAll { if case .shard = $0 { true } else { false } }
    }

    /// The test hook's pause, cut short by a cancel.
    static func pause(milliseconds: Int, unless stop: StopSignal) throws {
        let until = Date().addingTimeInterval(Double(milliseconds) / 1000)
        while Date() < until {
            if stop.isRaised { throw RenderCancelled() }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    func deliver(_ result: (key: AttemptID, outcome: Outcome)) {
        running[result.key] = nil
        runningRemote[result.key] = nil
        stopFlags[result.key] = nil
        framesDone[result.key] = nil
        switch result.outcome {
        case .chunk(let ready, let buffer):
            WorkerMetrics.shards("done").increment()
            WorkerMetrics.shardSeconds("total").recordSeconds(Double(ready.millis) / 1000)
            logger.log(.info, "rendered shard \(ready.shard) of job \(ready.jobID) in \(ready.millis) ms (\(ready.size) bytes)",
                       LogIDs(job: ready.jobID, shard: ready.shard, attempt: ready.attempt))
            send(.chunk, ready, payload: [.owned(buffer)])
            unconfirmed.sent(ready, buffer, to: coordinator, at: Date())
        case .failed(var failure) where failure.code == .cancelled:
            if options.drain.isRaised {
                failure.code = .handedBack
                failure.reason = "handed back: the worker is shutting down"
                logger.log(.info, "handed back shard \(failure.shard) of \(failure.jobID)", failure.ids)
            } else {
                logger.log(.info, "stopped shard \(failure.shard) of \(failure.jobID): cancelled", failure.ids)
            }
            WorkerMetrics.shards(failure.code == .handedBack ? "handed_back" : "cancelled").increment()
            send(.failed, failure)
        case .failed(let failure):
            WorkerMetrics.shards("failed").increment()
            logger.log(.warning, "shard \(failure.shard) of \(failure.jobID) failed: \(failure.reason)", failure.ids)
            send(.failed, failure)
        }
    }
}

extension ShardFailed {
    var ids: LogIDs { LogIDs(job: jobID, shard: shard, attempt: attempt) }
}
