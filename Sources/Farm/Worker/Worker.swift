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
    public struct Options: Sendable {
        public var endpoint: String
        public var slots: Int
        public var cacheDirectory: URL
        public var cacheLimit: Int64 = 10 << 30
        /// Thumbnails and frames kept in `cacheDirectory/stills`.
        public var stillCacheLimit: Int64 = 1 << 30
        public var workerID = "w-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        public var heartbeatMillis = 1000
        public var liveness = 3
        /// Test hooks: a hostile worker that corrupts its chunks, one that always fails,
        /// and a file that gets one line per render.
        public var corruptChunks = false
        public var failAlways = false
        public var renderLog: String?
        /// Test hook: a pause before each shard, so a test can act while a job is surely running.
        public var shardDelayMillis = 0
        /// CURVE keys for a coordinator that requires them.
        public var curve: CurveClient?
        /// Directories whose files may be read in place (a shared filesystem).
        public var mediaRoots: [URL] = []
        /// Reads media named by URL straight from their origins (docs/operations.md, "Sources by URL").
        public var origins = OriginClient(policy: URLPolicy())
        /// Raised by SIGTERM/SIGINT: take no more work, finish or hand back running shards
        /// within `drainSeconds`, then leave (docs/operations.md, "Shutting down").
        public var drain = StopSignal()
        public var drainSeconds = 30.0
        /// The process whose worker this is (`reel render`'s embedded farm): when it dies,
        /// this worker leaves too instead of running on as an orphan.
        public var parentPID: Int32?
        public var stop = StopSignal()
        /// Beats each time round the loop, for `/healthz`.
        public var pulse = LoopPulse()

        public init(endpoint: String, slots: Int, cacheDirectory: URL) {
            self.endpoint = endpoint
            self.slots = slots
            self.cacheDirectory = cacheDirectory
        }
    }

    let options: Options
    private let context: ZMQContext
    private var socket: ZMQSocket
    private let cache: WorkerMediaCache
    private let results = Inbox<(key: AttemptID, outcome: Outcome)>()
    private var running: [AttemptID: Date] = [:] {
        didSet { busySlots.set(running.count) }
    }
    /// How many slots render, for the still thread's choice of frame threads.
    private let busySlots = SlotGauge()
    /// Raised to stop a running shard (cancel, or a backup copy that won elsewhere).
    private var stopFlags: [AttemptID: StopSignal] = [:]
    private var waiting: [Waiting] = []                  // for media
    private let stills: StillThread
    /// Signalled by render and still threads when a result is ready.
    private let wakeup: Wakeup
    private var fetches: [String: (handle: FileHandle, received: Int)] = [:]
    /// A video shard's source is read by ranges: only the blocks its demuxer touches.
    private let ranges: RangeFetcher
    /// Media read by ranges, per running shard: their blocks stay in the cache meanwhile.
    private var runningRemote: [AttemptID: Set<String>] = [:]
    private var runningMedia: Set<String> { runningRemote.values.reduce(into: []) { $0.formUnion($1) } }
    private var lastHeard = Date()
    private var lastSent = Date.distantPast
    private var lastSample = Date.distantPast
    private var welcomed = false
    private var backoff = 1.0
    /// Every line carries this worker's id (docs/operations.md, "Logs").
    let logger: Logger
    private let scratch: URL

    public init(options: Options, logger: Logger = Logger(label: "reel.worker", factory: { _ in SwiftLogNoOpLogHandler() })) throws {
        self.options = options
        var logger = logger
        logger[metadataKey: "worker"] = .string(options.workerID)
        self.logger = logger
        context = try ZMQContext()
        socket = try Self.connect(context, options.endpoint, curve: options.curve)
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

    private static func connect(_ context: ZMQContext, _ endpoint: String, curve: CurveClient?) throws -> ZMQSocket {
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
                send(.heartbeat, Heartbeat(busy: running.count, draining: options.drain.isRaised ? true : nil,
                                           residentKB: ProcessMemory.residentKB, cpuSeconds: ProcessMemory.cpuSeconds))
            }
            if Date().timeIntervalSince(lastHeard) * 1000 > Double(options.heartbeatMillis * options.liveness) {
                try reconnect()
            }
        }
        socket.close()
        stills.shutDown()
    }

    /// Paranoid Pirate: a silent coordinator means a new socket and a new hello, after a
    /// growing pause (1 s … 16 s).
    private func reconnect() throws {
        logger.warning("coordinator silent; reconnecting in \(Int(backoff)) s")
        socket.close()
        Thread.sleep(forTimeInterval: backoff)
        backoff = min(backoff * 2, 16)
        socket = try Self.connect(context, options.endpoint, curve: options.curve)
        welcomed = false
        lastHeard = Date()
        for (_, fetch) in fetches { try? fetch.handle.close() }
        fetches = [:]
        sendHello()
    }

    private func sendHello() {
        send(.hello, Hello(workerID: options.workerID, host: ProcessInfo.processInfo.hostName, slots: options.slots,
                           capabilities: ["video", "audio", "stills"], engineVersion: EngineVersion.engine,
                           encoders: EncoderFingerprint.all))
    }

    private func send<Body: Encodable>(_ type: MessageType, _ body: Body, payload: [ZMQSocket.Frame] = []) {
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
    private func handle(_ frames: [Data]) throws {
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
            guard refusal.code == .unknownWorker else {
                throw FarmError(refusal.code, "coordinator refused this worker: \(refusal.message)")
            }
            sendHello()
            return
        }
        do {
            try process(message)
        } catch {
            logger.error("\(message.type.rawValue) from the coordinator failed: \(error)")
        }
    }

    private func process(_ message: WireMessage) throws {
        switch message.type {
        case .welcome:
            welcomed = true
            backoff = 1
            logger.info("joined the farm at \(options.endpoint) as \(options.workerID)")
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

    // MARK: Media

    private func accept(_ work: Waiting) {
        waiting.append(work)
        startReady()
    }

    /// Starts every waiting shard whose files are all here (a video shard's source may be
    /// read by ranges instead); requests the first missing block otherwise.
    private func startReady() {
        var still: [Waiting] = []
        for assignment in waiting {
            var files: [String: URL] = [:]
            var remote: [String: String] = [:]
            var missing: String?
            var hits = 0
            for (reference, contentID) in assignment.files {
                let path = assignment.paths[reference].flatMap { MediaStore.isInside($0, options.mediaRoots) ? $0 : nil }
                let trusted: FileStat? = if case .shard(let a) = assignment { a.pathStats[reference] } else { nil }
                if let url = cache.cached(contentID) {
                    files[reference] = url
                    hits += 1
                } else if let url = cache.inPlace(path, contentID: contentID, trusted: trusted) {
                    files[reference] = url
                } else if case .shard(let a) = assignment, a.spec.origins?[reference] != nil {
                    continue   // read from its origin by the render
                } else if case .shard(let a) = assignment, a.spec.media.contains(reference) {   // video and audio read by ranges
                    remote[reference] = contentID
                } else {
                    missing = contentID
                }
            }
            for (path, trusted) in cache.takeInPlaceNews() {
                logger.info("reading \(path) in place (\(trusted ? "its size and time match the coordinator's check: not hashed" : "hashed to check it"))")
            }
            if let missing {
                still.append(assignment)
                if fetches[missing] == nil { startFetch(missing) }
            } else {
                WorkerMetrics.mediaCacheHits.increment(by: Int64(hits))
                WorkerMetrics.mediaCacheMisses.increment(by: Int64(remote.count))
                switch assignment {
                case .shard(let shard): start(shard, files: files, remote: remote)
                case .stills(let request): stills.post(.serve(request, files: files))
                }
            }
        }
        waiting = still
    }

    private func startFetch(_ contentID: String) {
        guard let partial = cache.partialURL(contentID) else {
            return failWaiting(on: contentID, FarmError(.invalidInput, "'\(contentID)' is not a content id"))
        }
        let handle: FileHandle
        do {
            guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                throw FarmError(.ioFailed, "cannot create \(partial.path)")
            }
            handle = try FileHandle(forWritingTo: partial)
        } catch {
            return failWaiting(on: contentID, FarmError(.ioFailed, "cannot fetch \(contentID) into the media cache: \(error)"))
        }
        fetches[contentID] = (handle, 0)
        WorkerMetrics.mediaCacheMisses.increment()
        logger.info("fetching \(contentID.prefix(19))… from the coordinator")
        send(.mediaRequest, MediaRequest(contentID: contentID, offset: 0, length: WireProtocol.blockSize))
    }

    /// A block of a whole-file fetch. Whatever fails (the coordinator lacks or cannot read
    /// the file, the cache cannot write it, the bytes do not match their content id) fails
    /// the work that waits for the file, with its code; the worker goes on.
    private func received(_ block: MediaBlock, data: Data) {
        guard var fetch = fetches[block.contentID], block.offset == fetch.received else { return }
        do {
            if let error = block.error { throw error }
            if block.missing { throw FarmError(.missingMedia, "the coordinator does not have \(block.contentID)") }
            try fetch.handle.write(contentsOf: data)
            WorkerMetrics.mediaBytesFetched.increment(by: Int64(data.count))
            fetch.received += data.count
            fetches[block.contentID] = fetch
            if fetch.received < block.total, !data.isEmpty {
                send(.mediaRequest, MediaRequest(contentID: block.contentID, offset: fetch.received, length: WireProtocol.blockSize))
                return
            }
            fetches[block.contentID] = nil
            try fetch.handle.close()
            let inUse = Set(waiting.flatMap { $0.files.values })
            _ = try cache.complete(block.contentID, keeping: inUse)
            startReady()
        } catch {
            fetches[block.contentID] = nil
            try? fetch.handle.close()   // the partial file is abandoned: nothing to keep
            if let partial = cache.partialURL(block.contentID) { unlink(partial.path) }
            failWaiting(on: block.contentID, FarmError.from(error, fallback: .ioFailed))
        }
    }

    /// Every shard and still request waiting for `contentID` fails with `error`.
    private func failWaiting(on contentID: String, _ error: FarmError) {
        let failing = waiting.filter { $0.files.values.contains(contentID) }
        waiting.removeAll { $0.files.values.contains(contentID) }
        logger.warning("\(failing.count) item(s) waiting for \(contentID.prefix(19))… failed: \(error)")
        for work in failing {
            switch work {
            case .shard(let a):
                send(.failed, ShardFailed(jobID: a.jobID, shard: a.shard, attempt: a.attempt, code: error.code, reason: error.message))
            case .stills(let r):
                send(.stillsReply, StillsReply(requestID: r.requestID, worker: options.workerID, results: [], invalid: nil,
                                               error: error, missing: []))
            }
        }
    }

    // MARK: Rendering

    private func start(_ assignment: ShardAssignment, files: [String: URL], remote: [String: String]) {
        let key = assignment.attemptID
        running[key] = Date()
        runningRemote[key] = Set(remote.values)
        let stop = StopSignal()
        stopFlags[key] = stop
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
            results.post((key, Self.render(assignment, files: files, sources: sources, chunk: chunk, options: options, stop: stop)))
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

    private static func render(_ a: ShardAssignment, files: [String: URL], sources: RemoteSources, chunk: String,
                               options: Options, stop: StopSignal) -> Outcome {
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
            // Fewer slots than cores: a shard makes its pictures on a core of its own.
            let overlapped = options.slots < ProcessInfo.processInfo.activeProcessorCount
            let stats = try ShardRenderer.render(a.spec, media: media, assets: try a.spec.loadAssets(from: files), to: chunk,
                                                 overlapped: overlapped) { _ in
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
    private func handBackWaiting() {
        for case .shard(let a) in waiting {
            send(.failed, ShardFailed(jobID: a.jobID, shard: a.shard, attempt: a.attempt, code: .handedBack,
                                      reason: "handed back: the worker is shutting down"))
        }
        waiting.removeAll { if case .shard = $0 { true } else { false } }
    }

    /// The test hook's pause, cut short by a cancel.
    private static func pause(milliseconds: Int, unless stop: StopSignal) throws {
        let until = Date().addingTimeInterval(Double(milliseconds) / 1000)
        while Date() < until {
            if stop.isRaised { throw RenderCancelled() }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    private func deliver(_ result: (key: AttemptID, outcome: Outcome)) {
        running[result.key] = nil
        runningRemote[result.key] = nil
        stopFlags[result.key] = nil
        switch result.outcome {
        case .chunk(let ready, let buffer):
            WorkerMetrics.shards("done").increment()
            WorkerMetrics.shardSeconds("total").recordSeconds(Double(ready.millis) / 1000)
            logger.log(.info, "rendered shard \(ready.shard) of job \(ready.jobID) in \(ready.millis) ms (\(ready.size) bytes)",
                       LogIDs(job: ready.jobID, shard: ready.shard, attempt: ready.attempt))
            send(.chunk, ready, payload: [.owned(buffer)])
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
