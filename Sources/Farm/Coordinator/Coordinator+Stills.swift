import Foundation
import SessionKit

/// The coordinator's side of thumbnails and frames: the `StillsBroker` decides, this sends.
extension Coordinator {
    /// A client's request: refused at once if it lacks media or is not a one-segment
    /// session, else routed (docs/operations.md, "Thumbnails and frames"). Whether the
    /// media are there is found on the I/O lane (a file in place may need hashing).
    func stills(_ request: StillsRequest, from client: Data, holder: String? = nil) throws {
        // A client's pictures are of media it has sent (as its jobs are).
        let unshown = try holder.map { holder in try request.files.values.filter { try !store.holds(holder, $0) } } ?? []
        let (reader, files, paths) = (mediaReader, request.files, request.paths)
        ioLane.post(key: "media " + (files.values.min() ?? "")) {
            let missing = files.compactMap { reference, contentID in reader.file(for: contentID, candidate: paths[reference]) == nil ? contentID : nil }
            let all = Set(missing + unshown).sorted()
            return .stillMediaChecked(request, from: client, missing: all)
        }
    }

    /// The request once its media are checked.
    func stills(_ request: StillsRequest, from client: Data, missing: [String]) {
        func reply(invalid path: String? = nil, _ message: String = "", missing: [String] = []) {
            let invalid = path.map { [ValidationReport.Issue(path: $0, message: message)] }
            send(to: client, .stillsReply, StillsReply(requestID: request.requestID, worker: "", results: [], invalid: invalid,
                                                       error: nil, missing: missing))
        }
        guard missing.isEmpty else { return reply(missing: missing) }
        if let pool = request.pool, let wrong = PoolName.problem(pool) { return reply(invalid: "pool", wrong) }
        let session: Session
        do throws(SessionDocumentError) {
            session = try SessionDocument.decode(Data(request.session.utf8))
        } catch {
            return reply(invalid: error.path, "a still request needs a one-segment video session: \(error.message)")
        }
        guard let source = session.video?.videoSegments.first?.source,
              let mediaID = request.files[source] ?? request.origins?[source]?.contentID else {
            return reply(invalid: "video.videoSegments[0].source", "a still request needs a one-segment video session with its media's content id or origin")
        }
        // Names only: resolving would wait on the loop. The worker resolves and checks
        // every address before it connects.
        for object in (request.origins ?? [:]).values {
            if case .failure(let refused) = submissionContext.origins.policy.checkByName(object.url) {
                return reply(invalid: "origins", refused.description)
            }
        }
        let id = "s\(UInt64.random(in: 0...UInt64.max))"
        stillsBroker.add(request, from: .peer(client), mediaID: mediaID, id: id, now: Self.now)
        routeStills(id)
    }

    /// Sends (or re-sends) a pending request to the best-ranked live worker not yet tried.
    func routeStills(_ id: String) {
        // A job's pictures follow its pool (docs/operations.md, "Pools").
        let pool = stillsBroker.pending[id]?.request.pool
        let serving = workers.filter { _, worker in pool.map(worker.pools.contains) ?? true }
        switch stillsBroker.route(id, workers: serving.mapValues(\.workerID), now: Self.now, pool: pool) {
        case .send(let worker, let forwarded): send(to: worker, .stills, forwarded)
        case .fail(let client, let reply): answerStills(client, reply)
        case .wait: break
        }
    }

    /// An answer to a client, or to a compile thread waiting for a probe.
    private func answerStills(_ requester: StillsBroker.Requester, _ reply: StillsReply, payload: [Data] = []) {
        switch requester {
        case .peer(let client): send(to: client, .stillsReply, reply, payload: payload)
        case .probeWaiter(let token): workerProbes.answer(token: token, contentID: reply.requestID, probe: reply.probes?[reply.requestID])
        }
    }

    /// Sends the objects compile threads want probed to the workers, one probe-only still
    /// request each (requested under its content id); with no worker, each is answered
    /// with nothing at once and the compile thread probes it itself.
    func dispatchWorkerProbes() {
        for asked in workerProbes.take() {
            for (contentID, entry) in asked.objects.sorted(by: { $0.key < $1.key }) {
                do {
                    guard !workers.isEmpty else { throw FarmError(.noAnswer, "no live workers") }
                    let id = "s\(UInt64.random(in: 0...UInt64.max))"
                    let request = try WorkerProbes.request(reference: entry.reference, object: entry.object, id: contentID)
                    stillsBroker.add(request, from: .probeWaiter(token: asked.token), mediaID: contentID, id: id, now: Self.now)
                    routeStills(id)
                } catch {
                    workerProbes.answer(token: asked.token, contentID: contentID, probe: nil)
                }
            }
        }
    }

    /// A worker's answer goes back to the client under the client's request id; a worker
    /// that failed to serve is replaced by the next in the ranking.
    func stillsReply(_ reply: StillsReply, payload: [Data], from identity: Data) {
        switch stillsBroker.answer(reply, from: identity, liveWorkers: workers.count) {
        case .none: return
        case .some(.none):
            log("stills \(reply.requestID) failed on \(reply.worker): \(reply.error?.message ?? ""); trying the next worker",
                LogIDs(worker: reply.worker), level: .warning)
            routeStills(reply.requestID)
        case .some(.some(let answer)): answerStills(answer.client, answer.reply, payload: payload)
        }
    }

    /// Re-routes requests whose worker is gone or silent; called every turn of the loop.
    func dispatchStills() {
        for id in stillsBroker.stalled(now: Self.now, isLive: { workers[$0] != nil }) { routeStills(id) }
    }

    /// Every worker forgets its pictures of these media (in order with later requests).
    func invalidate(_ request: InvalidateRequest, from client: Data) {
        for identity in workers.keys { send(to: identity, .invalidate, request) }
        send(to: client, .invalidated, Invalidated(removed: workers.count))
    }
}
