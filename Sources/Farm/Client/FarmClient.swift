import CZeroMQ
import Foundation
import RenderEngine
import SessionKit

/// A client of a coordinator (`reel submit`, `status`, `watch`, …): a DEALER socket,
/// one request at a time, every wait bounded. Given several coordinators (a leader and its
/// standbys, docs/operations.md, "A standby coordinator"), it asks the next one when one
/// does not answer or does not lead.
public final class FarmClient {
    /// The ZeroMQ context its socket lives in: its own, or one a process shares among its
    /// many clients (the HTTP API's pool and event streams).
    public let context: ZMQContext
    private var socket: ZMQSocket
    /// The coordinator asked now, one of `endpoints`.
    public private(set) var endpoint: String
    public let endpoints: [String]
    private let curve: CurveClient?
    /// Reports CURVE handshakes the coordinator refused (only with keys).
    private var handshakeMonitor: ZMQSocket?
    public var timeoutSeconds: Double = 30
    /// Told once when an answer has not come within 2 s (a CLI says it is waiting).
    public var onSlowAnswer: (@Sendable (String) -> Void)?
    private var toldSlow = false

    /// `context`: a context to share (a context is thread-safe; the socket stays this
    /// client's); nil makes one for this client.
    public convenience init(endpoint: String, curve: CurveClient? = nil, context shared: ZMQContext? = nil) throws {
        try self.init(endpoints: [endpoint], curve: curve, context: shared)
    }

    /// `endpoints`: the coordinators that share one store, in the order to try them.
    public init(endpoints: [String], curve: CurveClient? = nil, context shared: ZMQContext? = nil) throws {
        guard let first = endpoints.first else { throw FarmError(.invalidInput, "no coordinator to connect to") }
        self.endpoints = endpoints
        self.curve = curve
        endpoint = first
        context = try shared ?? ZMQContext()
        (socket, handshakeMonitor) = try Self.connect(first, context: context, curve: curve)
    }

    private static func connect(_ endpoint: String, context: ZMQContext, curve: CurveClient?) throws -> (ZMQSocket, ZMQSocket?) {
        let socket = try ZMQSocket(context, .dealer, sendTimeoutMillis: 5000)
        var monitor: ZMQSocket?
        if let curve {
            try socket.secure(curve)
            monitor = try socket.monitor(events: ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
        }
        try socket.connect(endpoint)
        return (socket, monitor)
    }

    /// Asks the next coordinator from now on.
    private func switchCoordinator() throws {
        let next = FarmEndpoint.next(after: endpoint, in: endpoints)
        socket.close()
        handshakeMonitor?.close()
        (socket, handshakeMonitor) = try Self.connect(next, context: context, curve: curve)
        endpoint = next
    }

    /// Sends and waits for the answer. With several coordinators, one that stands by
    /// (`notLeader`: it did nothing) is left for the next at once, round and round until
    /// the answer's time is up. One that is silent is left too: after a share of the time
    /// for a read, after the whole of it for anything else (a submission unanswered
    /// within its `answerWithin` is never created, so it may go to the next).
    func request<Body: Encodable>(_ type: MessageType, _ body: Body, payload: [Data] = [], timeout: Double? = nil) throws -> WireMessage {
        let frames = try WireMessage(type, body, payload: payload).frames
        guard endpoints.count > 1 else {
            try socket.send(frames)
            return try receive(timeout: timeout)
        }
        let wait = timeout ?? timeoutSeconds
        let isRead = Self.reads.contains(type)
        var deadline = Date().addingTimeInterval(wait)
        var refusedInARow = 0, silent = 0
        while true {
            let left = deadline.timeIntervalSinceNow
            do {
                try socket.send(frames)
                return try receive(timeout: isRead ? max(1, min(left, Self.silenceSeconds)) : max(1, left))
            } catch let error as FarmError where error.code == .notLeader && left > 1 {
                refusedInARow += 1
                // Every coordinator stands by: a takeover is under way (seconds).
                if refusedInARow >= endpoints.count { Thread.sleep(forTimeInterval: 0.5) }
            } catch let error as FarmError where error.code == .noAnswer && (isRead ? left > 1 : silent + 1 < endpoints.count) {
                refusedInARow = 0
                silent += 1
                if !isRead { deadline = Date().addingTimeInterval(wait) }
            }
            try switchCoordinator()
        }
    }

    /// Requests that change nothing: any coordinator may answer them, and asking again is harmless.
    static let reads: Set<MessageType> = [.status, .watch, .shards, .workers, .fetch]

    /// How long one of several coordinators may stay silent before the next is asked.
    static let silenceSeconds = 5.0

    func receive(timeout: Double? = nil) throws -> WireMessage {
        let started = Date()
        let deadline = started.addingTimeInterval(timeout ?? timeoutSeconds)
        while Date() < deadline {
            if !toldSlow, timeout == nil, Date().timeIntervalSince(started) >= 2, let onSlowAnswer {
                toldSlow = true
                onSlowAnswer(endpoint)
            }
            if let monitor = handshakeMonitor, let event = try monitor.monitorEvent() {
                throw FarmError(.handshakeFailed, event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
                    ? "the coordinator at \(endpoint) refused this client's CURVE key (add its .pub to the coordinator's authorized keys)"
                    : "CURVE handshake with \(endpoint) failed: is --server-key the coordinator's public key?")
            }
            if try ZMQSocket.poll([socket], timeoutMillis: 100)[0], let frames = try socket.receive() {
                let message = try WireMessage.parse(frames)
                switch message.type {
                case .error: throw try message.decode(FarmError.self)
                case .refused:
                    let refusal = try message.decode(FarmError.self)
                    throw FarmError(refusal.code, "coordinator refused: \(refusal.message)")
                default: return message
                }
            }
        }
        let hint = handshakeMonitor != nil ? " (is --server-key the coordinator's public key?)" : ""
        throw FarmError(.noAnswer, "no answer from the coordinator at \(endpoint) within \(Int(timeout ?? timeoutSeconds)) s\(hint)")
    }

    // MARK: Submit

    public enum SubmitResult {
        /// The job's id, and how many of its shards came from the chunk cache (of how many).
        case submitted(String, reused: Int, shards: Int)
        case invalid([ValidationReport.Issue])
    }

    /// Sends the session; uploads media the coordinator lacks (by content id) and resubmits.
    /// `layout`: `.segments` writes one file per segment.
    /// `outputURL`, `sidecarURL`: presigned PUT URLs the coordinator sends the result to.
    /// `contentIDs`: the files' content ids (reference → id) when the caller has hashed them.
    public func submit(_ loaded: LoadedSession, settings: EncoderSettings, priority: Int,
                       layout: Plan.Layout = .whole, outputURL: String? = nil, sidecarURL: String? = nil,
                       contentIDs: [String: String] = [:], pool: String? = nil) throws -> SubmitResult {
        let (session, files, paths) = try describe(loaded) { reference, url in try contentIDs[reference] ?? ContentID.of(file: url.path) }
        var submit = Submit(session: session, files: files, paths: paths, settings: settings, priority: priority,
                            layout: layout == .whole ? nil : layout)
        submit.outputURL = outputURL
        submit.sidecarURL = sidecarURL
        submit.pool = pool
        for _ in 0..<2 {
            submit.answerWithin = submit.answerWithin ?? timeoutSeconds   // past it, nothing is created
            let reply = try request(.submit, submit).decode(Submitted.self)
            if let id = reply.jobID { return .submitted(id, reused: reply.reused ?? 0, shards: reply.shards ?? 0) }
            if !reply.problems.isEmpty { return .invalid(reply.problems) }
            try upload(reply.missing, files: files, local: loaded.files)
        }
        throw FarmError(.missingMedia, "the coordinator still lacks media after upload")
    }

    public enum BatchSubmitResult {
        case submitted(batchID: String, variants: [VariantJob], reused: Int, shards: Int)
        case invalid([ValidationReport.Issue])
    }

    /// Sends a batch (docs/api.md, "Batches"): the template's session and, for each
    /// variant, its replacements; `loaded` are the variants loaded here with them (their
    /// media go into the files). Uploads what the coordinator lacks and submits again.
    public func submitBatch(template: LoadedSession, variants: [(variant: BatchVariant, loaded: LoadedSession)],
                            settings: EncoderSettings, priority: Int, layout: Plan.Layout = .whole) throws -> BatchSubmitResult {
        let described = try describe(template) { try ContentID.of(file: $1.path) }
        var (files, paths) = (described.files, described.paths)
        var local = template.files
        for (_, loaded) in variants {
            for (reference, url) in loaded.files where files[reference] == nil {
                files[reference] = try ContentID.of(file: url.path)
                paths[reference] = url.path
                local[reference] = url
            }
        }
        var submit = Submit(session: described.session, files: files, paths: paths, settings: settings, priority: priority,
                            layout: layout == .whole ? nil : layout)
        submit.variants = variants.map(\.variant)
        submit.geometry = template.recordedGeometry.isEmpty ? nil : template.recordedGeometry
        for _ in 0..<2 {
            let wait = submit.answerWithin ?? submit.answerSeconds(usually: timeoutSeconds)
            submit.answerWithin = wait   // past it, nothing is created
            let reply = try request(.submit, submit, timeout: wait == timeoutSeconds ? nil : wait).decode(Submitted.self)
            if let batchID = reply.batchID, let jobs = reply.variants {
                return .submitted(batchID: batchID, variants: jobs, reused: reply.reused ?? 0, shards: reply.shards ?? 0)
            }
            if !reply.problems.isEmpty { return .invalid(reply.problems) }
            try upload(reply.missing, files: files, local: local)
        }
        throw FarmError(.missingMedia, "the coordinator still lacks media after upload")
    }

    /// Every job of a batch, in its variants' order.
    public func batchStatus(_ batchID: String) throws -> BatchStatus? {
        BatchStatus(batchID: batchID, variants: try request(.status, StatusRequest(batch: batchID)).decode(StatusReply.self).jobs)
    }

    /// Follows a batch: `progress` with its status now and each time one of its jobs
    /// changes; returns the final status, or the last one seen once `stop` is raised. Every
    /// unfinished job is watched on this socket, so its pushes interleave with the answers:
    /// each is a job's status and is filed by its id, whichever comes first. Make other
    /// requests (a fetch) on another client meanwhile.
    public func watchBatch(_ batchID: String, stop: StopSignal? = nil, progress: (BatchStatus) throws -> Void) throws -> BatchStatus {
        guard var batch = try batchStatus(batchID) else { throw FarmError(.noSuchJob, "no batch \(batchID)") }
        var jobs = batch.variants
        let place = Dictionary(uniqueKeysWithValues: jobs.enumerated().map { ($1.jobID, $0) })
        func file(_ message: WireMessage) throws {
            let status = try message.decode(JobStatus.self)
            if let index = place[status.jobID], !jobs[index].isFinal { jobs[index] = status }
        }
        func subscribe() throws {
            for job in jobs where !job.isFinal {
                try socket.send(try WireMessage(.watch, JobRequest(jobID: job.jobID)).frames)
            }
        }
        try subscribe()
        try progress(batch)
        while batch.state == .rendering, stop?.isRaised != true {
            do {
                try file(try receive(timeout: 2))
            } catch let failure as FarmError where failure.code == .noAnswer {
                try subscribe()   // quiet jobs (or a restarted coordinator): ask again
            }
            if let next = BatchStatus(batchID: batchID, variants: jobs) { batch = next }
            try progress(batch)
        }
        return batch
    }

    /// Gives an unfinished job a new priority; returns its status.
    /// `onBehalfOf` (an admin's, the HTTP API's): the owner the job must be.
    public func setPriority(_ jobID: String, _ priority: Int, onBehalfOf owner: String? = nil, farmWide: Bool = false) throws -> JobStatus? {
        try request(.setPriority, SetPriority(jobID: jobID, priority: priority, onBehalfOf: owner, farmWide: farmWide))
            .decode(StatusReply.self).jobs.first
    }

    /// Whether the coordinator holds the media `contentID` for this client; an admin may
    /// ask for a `holder` it serves (docs/api.md, "Uploading media").
    public func hasMedia(_ contentID: String, holder: String? = nil) throws -> Bool {
        try request(.mediaQuery, MediaQuery(contentID: contentID, holder: holder)).decode(MediaState.self).present
    }

    /// Hands a whole uploaded file over by path (the HTTP API in the coordinator's process;
    /// docs/protocol.md, "Uploads"): hashed once by the coordinator, and moved, not copied.
    /// The answer is awaited for as long as hashing the file may take at 100 MB/s.
    public func adopt(_ file: URL, contentID: String, holder: String?) throws -> Uploaded {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.doubleValue ?? 0
        try socket.send(try WireMessage(.adopt, Adopt(contentID: contentID, path: file.path, holder: holder)).frames)
        return try receive(timeout: max(timeoutSeconds, size / 100e6)).decode(Uploaded.self)
    }

    /// Each shard of a job: state, worker, attempts, time (the dashboard's shard map).
    public func shards(_ jobID: String, onBehalfOf owner: String? = nil) throws -> [ShardInfo] {
        try request(.shards, JobRequest(jobID: jobID, onBehalfOf: owner)).decode(ShardsReply.self).shards
    }

    /// One submit as it is (the HTTP API's): no upload; the reply says what is missing.
    public func submit(_ request: Submit) throws -> Submitted {
        var request = request
        let wait = request.answerWithin ?? request.answerSeconds(usually: timeoutSeconds)
        request.answerWithin = wait   // past it, nothing is created
        return try self.request(.submit, request, timeout: wait == timeoutSeconds ? nil : wait).decode(Submitted.self)
    }

    /// A block of a finished job's `part` (`output`, `sidecar`): its bytes and the part's size.
    public func fetchBlock(_ jobID: String, part: ResultPart, offset: Int, length: Int,
                           onBehalfOf owner: String? = nil) throws -> (data: Data, total: Int) {
        let reply = try request(.fetch, FetchRequest(jobID: jobID, offset: offset, length: length, part: part, onBehalfOf: owner))
        return (reply.payload.first ?? Data(), try reply.decode(ResultBlock.self).total)
    }

    /// The session as canonical JSON, each reference's content id and local path.
    /// `contentID`: the content id of a reference's file.
    private func describe(_ loaded: LoadedSession, contentID: (String, URL) throws -> String)
        throws -> (session: String, files: [String: String], paths: [String: String]) {
        var files: [String: String] = [:]
        var paths: [String: String] = [:]
        for (reference, url) in loaded.files {
            files[reference] = try contentID(reference, url)
            paths[reference] = url.path
        }
        return (String(decoding: try SessionDocument.encode(loaded.session), as: UTF8.self), files, paths)
    }

    /// Uploads the files whose content ids the coordinator said it lacks.
    /// `files`: reference → content id; `local`: reference → the file here.
    private func upload(_ missing: [String], files: [String: String], local: [String: URL]) throws {
        for contentID in missing {
            guard let reference = files.first(where: { $0.value == contentID })?.key, let url = local[reference] else { continue }
            try upload(url, contentID: contentID)
        }
    }

    // MARK: Stills

    public struct StillsOutcome: Sendable {
        public var pictures: [(StillResult, Data)]
        public var worker: String
        /// Why the request is invalid input, when it is: each problem at its path.
        public var invalid: [ValidationReport.Issue]?
    }

    /// Thumbnails or frames of a still session, made by the worker that holds its media's
    /// cache; uploads media the coordinator lacks first.
    /// `contentID` may memoise hashing (a local `StillCache` does).
    public func stills(_ loaded: LoadedSession, _ stills: [StillRequest],
                       contentID: (URL) throws -> String = { try ContentID.of(file: $0.path) }) throws -> StillsOutcome {
        let (session, files, paths) = try describe(loaded) { try contentID($1) }
        let request = StillsRequest(requestID: UUID().uuidString, session: session, files: files, paths: paths, stills: stills,
                                    origins: loaded.origins.isEmpty ? nil : loaded.origins)
        for _ in 0..<2 {
            let message = try self.request(.stills, request)
            let reply = try message.decode(StillsReply.self)
            if let invalid = reply.invalid { return StillsOutcome(pictures: [], worker: reply.worker, invalid: invalid) }
            if let error = reply.error { throw FarmError(error.code, reply.worker.isEmpty ? error.message : "worker \(reply.worker): \(error.message)") }
            if reply.missing.isEmpty {
                guard reply.results.count == stills.count, message.payload.count == stills.count else {
                    throw FarmError(.internal, "the farm answered \(reply.results.count) of \(stills.count) pictures")
                }
                return StillsOutcome(pictures: Array(zip(reply.results, message.payload)), worker: reply.worker, invalid: nil)
            }
            try upload(reply.missing, files: files, local: loaded.files)
        }
        throw FarmError(.missingMedia, "the coordinator still lacks media after upload")
    }

    /// Thumbnails or frames of a submitted job's segments, from its stored session and media.
    public func jobStills(_ jobID: String, _ stills: [StillRequest]) throws -> StillsOutcome {
        let message = try request(.jobStills, JobStillsRequest(jobID: jobID, stills: stills))
        let reply = try message.decode(StillsReply.self)
        if let invalid = reply.invalid { return StillsOutcome(pictures: [], worker: reply.worker, invalid: invalid) }
        if let error = reply.error { throw FarmError(error.code, reply.worker.isEmpty ? error.message : "worker \(reply.worker): \(error.message)") }
        guard reply.missing.isEmpty else { throw FarmError(.missingMedia, "the coordinator no longer has the job's media \(reply.missing)") }
        guard reply.results.count == stills.count, message.payload.count == stills.count else {
            throw FarmError(.internal, "the farm answered \(reply.results.count) of \(stills.count) pictures")
        }
        return StillsOutcome(pictures: Array(zip(reply.results, message.payload)), worker: reply.worker, invalid: nil)
    }

    /// Clears every worker's cached pictures of these media; returns how many workers were told.
    public func invalidate(_ contentIDs: [String]) throws -> Int {
        try request(.invalidate, InvalidateRequest(contentIDs: contentIDs)).decode(Invalidated.self).removed
    }

    public func upload(_ url: URL, contentID: String) throws {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw FarmError(.ioFailed, "cannot read \(url.path)") }
        defer { try? handle.close() }
        let total = Int(try handle.seekToEnd())
        try handle.seek(toOffset: 0)
        var offset = 0
        repeat {
            let block = try handle.read(upToCount: WireProtocol.blockSize) ?? Data()
            let reply = try request(.upload, Upload(contentID: contentID, offset: offset, total: total), payload: [block]).decode(Uploaded.self)
            offset += block.count
            if reply.complete { return }
            if block.isEmpty { break }
        } while offset < total
        throw FarmError(.ioFailed, "upload of \(url.path) did not complete")
    }
}
