import Crypto
import Foundation
import SessionKit

/// A still request between a client and the worker serving it.
struct PendingStills {
    let client: Data
    let request: StillsRequest
    /// The media whose cache decides the worker (rendezvous hashing).
    let mediaID: String
    let created: Double
    var worker: Data?
    var sentAt = 0.0
    var tried: Set<String> = []
}

extension Coordinator {
    /// Thumbnails and frames (docs/operations.md) go to the live worker ranked first by rendezvous
    /// hashing of the media id, so one source's pictures hit one cache; they are sent at
    /// once, ahead of queued shards and outside the workers' slots.
    func stills(_ request: StillsRequest, from client: Data) throws {
        func reply(invalid: String? = nil, error: String? = nil, missing: [String] = []) {
            send(to: client, .stillsReply, StillsReply(requestID: request.requestID, worker: "", results: [], invalid: invalid,
                                                       error: error, missing: missing))
        }
        let missing = missingMedia(files: request.files, paths: request.paths)
        guard missing.isEmpty else { return reply(missing: missing) }
        guard let session = try? SessionDocument.decode(Data(request.session.utf8)),
              let source = session.video?.videoSegments.first?.source, let mediaID = request.files[source] else {
            return reply(invalid: "a still request needs a one-segment video session with its media's content id")
        }
        let id = "s\(UInt64.random(in: 0...UInt64.max))"
        pendingStills[id] = PendingStills(client: client, request: request, mediaID: mediaID, created: Self.now)
        routeStills(id)
    }

    /// Sends (or re-sends) a pending request to the best-ranked live worker not yet tried.
    func routeStills(_ id: String) {
        guard var pending = pendingStills[id] else { return }
        let ranked = Self.rendezvous(mediaID: pending.mediaID, workers: workers.values.map(\.workerID))
        guard let workerID = ranked.first(where: { !pending.tried.contains($0) }),
              let identity = workers.first(where: { $0.value.workerID == workerID })?.key else {
            if !workers.isEmpty && ranked.allSatisfy(pending.tried.contains) || Self.now - pending.created > 30 {
                pendingStills[id] = nil
                let error = workers.isEmpty ? "no live workers" : "no worker could serve it (tried \(pending.tried.sorted().joined(separator: ", ")))"
                send(to: pending.client, .stillsReply, StillsReply(requestID: pending.request.requestID, worker: "", results: [],
                                                                   invalid: nil, error: error, missing: []))
            }
            return   // no worker yet: tried again on the next turn
        }
        pending.worker = identity
        pending.sentAt = Self.now
        pending.tried.insert(workerID)
        pendingStills[id] = pending
        var forwarded = pending.request
        forwarded.requestID = id
        send(to: identity, .stills, forwarded)
    }

    /// A worker's answer goes back to the client under the client's request id; a worker
    /// that failed to serve is replaced by the next in the ranking.
    func stillsReply(_ reply: StillsReply, payload: [Data], from identity: Data) {
        guard let pending = pendingStills[reply.requestID], pending.worker == identity else { return }   // late: already re-sent
        if reply.error != nil, workers.count > pending.tried.count {
            log("stills \(reply.requestID) failed on \(reply.worker): \(reply.error ?? ""); trying the next worker",
                LogIDs(worker: reply.worker), level: .warning)
            pendingStills[reply.requestID]?.worker = nil
            routeStills(reply.requestID)
            return
        }
        pendingStills[reply.requestID] = nil
        var answer = reply
        answer.requestID = pending.request.requestID
        send(to: pending.client, .stillsReply, answer, payload: payload)
    }

    /// Re-routes requests whose worker is gone or silent; called every turn of the loop.
    func dispatchStills() {
        let now = Self.now
        for (id, pending) in pendingStills {
            let lost = pending.worker.map { workers[$0] == nil } ?? true
            if lost || now - pending.sentAt > 20 {
                pendingStills[id]?.worker = nil
                routeStills(id)
            }
        }
    }

    /// Every worker forgets its pictures of these media (in order with later requests).
    func invalidate(_ request: InvalidateRequest, from client: Data) {
        for identity in workers.keys { send(to: identity, .invalidate, request) }
        send(to: client, .invalidated, Invalidated(removed: workers.count))
    }

    /// Workers ranked for a media id: highest hash of (media, worker) first. Adding or
    /// losing a worker moves only the media that ranked it first.
    static func rendezvous(mediaID: String, workers: [String]) -> [String] {
        func score(_ worker: String) -> UInt64 {
            SHA256.hash(data: Data("\(mediaID)\n\(worker)".utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        }
        return workers.map { ($0, score($0)) }.sorted { ($0.1, $0.0) > ($1.1, $1.0) }.map(\.0)
    }
}
