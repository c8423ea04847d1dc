import Foundation
import Logging
import RenderEngine
import SessionKit
import Synchronization

/// A worker's thumbnail and frame server (docs/operations.md): one thread of its own, apart from
/// the render slots, so interactive requests are served at once even while every slot
/// renders. It owns the worker's `StillCache`; requests and invalidations reach it in the
/// order the coordinator sent them.
final class StillThread: Sendable {
    enum Job: Sendable {
        case serve(StillsRequest, files: [String: URL])
        case invalidate([String])
    }

    private let jobs: SharedQueue<Job>
    private let replies: Inbox<(StillsReply, [Data])>
    private let thread: LaneThreads<SharedQueue<Job>>

    /// `origins` reads the sources a request names by URL.
    /// `busySlots`: the render slots at work; a clip opened meanwhile decodes on the other cores.
    init(directory: URL, limit: Int64, workerID: String, renderLog: String?, origins: OriginClient, wakeup: Wakeup,
         busySlots: SlotGauge, logger: Logger) throws {
        let (jobs, replies) = (SharedQueue<Job>(), Inbox<(StillsReply, [Data])>(wakes: wakeup))
        (self.jobs, self.replies) = (jobs, replies)
        // The cache is opened once, on the thread that owns it; a cache that cannot open
        // fails the worker's start here, never the thread later.
        thread = try LaneThreads(name: "stills", queue: jobs, stackSize: 4 << 20, open: { _ in
            let cache = try StillCache(directory: directory, limit: limit)
            let cores = ProcessInfo.processInfo.activeProcessorCount
            let decoders = StillDecoders(threads: { StillDecoders.frameThreads(cores: cores, busy: busySlots.value) })
            return (service: StillService(cache: cache, decoders: decoders, renderLog: renderLog), access: OriginAccess())
        }, handle: { state, job in
            switch job {
            case .serve(let request, let files):
                replies.post(Self.serve(request, files: files, origins: origins, access: state.access, service: state.service,
                                        workerID: workerID))
            case .invalidate(let ids):
                do {
                    let removed = try state.service.cache.invalidate(media: Set(ids))
                    logger.info("cleared \(removed) cached picture(s)")
                } catch {
                    logger.error("could not clear the cached pictures of \(ids.count) media file(s): \(error)")
                }
            }
        })
    }

    func post(_ job: Job) { jobs.post(job) }

    /// Replies ready to send, with one picture per result.
    func take() -> [(StillsReply, [Data])] { replies.take() }

    func shutDown() { thread.stop() }

    private static func serve(_ request: StillsRequest, files: [String: URL], origins: OriginClient, access: OriginAccess,
                              service: StillService, workerID: String) -> (StillsReply, [Data]) {
        var reply = StillsReply(requestID: request.requestID, worker: workerID, results: [], invalid: nil, error: nil, missing: [])
        do {
            let session = try SessionDocument.decode(Data(request.session.utf8))
            let pinned = request.origins ?? [:]
            // This worker's URL policy first, by address, before anything is sent: its
            // refusal is the request's error with its own code, not a failed render.
            for reference in pinned.keys.sorted() {
                guard let object = pinned[reference] else { continue }
                if case .failure(let refused) = origins.policy.addresses(for: object.url) {
                    reply.error = FarmError(.originRefused, "\(refused)")   // names the URL without its query
                    return (reply, [])
                }
            }
            // The cached pictures and open clips of an object serve only a request whose
            // own credential the origin accepts (`OriginAccess`).
            for reference in pinned.keys.sorted() {
                guard let object = pinned[reference] else { continue }
                try access.check(object, with: origins.bounded())
            }
            let contentIDs = request.files.merging(pinned.mapValues(\.contentID)) { $1 }
            var remembered: [String: MediaInfo] = [:]
            for (reference, id) in contentIDs { if let info = try service.cache.probe(contentID: id) { remembered[reference] = info } }
            let loaded = LoadedSession.make(url: URL(fileURLWithPath: "/session.json"), session: session, files: files,
                                            origins: pinned, originClient: origins, remembered: remembered)
            guard loaded.report.isValid else {
                reply.invalid = loaded.report.problems
                return (reply, [])
            }
            let served = try service.serve(loaded, contentIDs: contentIDs, requests: request.stills)
            if request.probe == true {
                reply.probes = contentIDs.reduce(into: [:]) { probes, entry in probes[entry.value] = loaded.probes[entry.key] }
            }
            reply.results = served.map(\.0)
            return (reply, try served.map { try Data(contentsOf: $0.1) })
        } catch let invalid as StillRequestError {
            reply.invalid = [ValidationReport.Issue(path: "stills", message: invalid.description)]
        } catch {
            reply.error = FarmError(FarmErrorCode.of(error), "\(error)")
        }
        return (reply, [])
    }
}

/// The number of render slots at work, set by the worker's loop, read by the still thread.
final class SlotGauge: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func set(_ busy: Int) { count.store(busy, ordering: .relaxed) }
}
