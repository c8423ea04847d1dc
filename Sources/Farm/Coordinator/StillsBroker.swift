import Crypto
import Foundation

/// Thumbnail and frame requests between clients and the workers serving them
/// (docs/operations.md, "Thumbnails and frames"): each goes to the live worker ranked first
/// by rendezvous hashing of its media id, so one source's pictures hit one cache; a worker
/// that fails, goes or stays silent 20 s is replaced by the next in the ranking, and a
/// request no worker could serve within 30 s fails. A value: it decides, the coordinator
/// sends.
struct StillsBroker {
    /// Who waits for a request's answer.
    enum Requester: Equatable {
        /// A client, answered over the socket.
        case peer(PeerID)
        /// A compile thread waiting for a new object's probe (`WorkerProbes`), by the
        /// token of its wait.
        case probeWaiter(token: String)
    }

    /// A request between a client and the worker serving it.
    struct Pending {
        let client: Requester
        let request: StillsRequest
        /// The media whose cache decides the worker.
        let mediaID: String
        let created: Double
        var worker: PeerID?
        var sentAt = 0.0
        var tried: Set<String> = []
    }

    /// What to do with a request now.
    enum Step {
        /// Send it (under the broker's own id) to this worker.
        case send(PeerID, StillsRequest)
        /// Answer the requester: nobody could serve it.
        case fail(Requester, StillsReply)
        /// No worker yet: try again on a later turn.
        case wait
    }

    private(set) var pending: [String: Pending] = [:]
    static let silentSeconds = 20.0
    static let patienceSeconds = 30.0

    /// Takes a client's request; returns the broker's id for it.
    mutating func add(_ request: StillsRequest, from client: Requester, mediaID: String, id: String, now: Double) {
        pending[id] = Pending(client: client, request: request, mediaID: mediaID, created: now)
    }

    /// The next step for request `id`, given the live workers (identity → worker id).
    /// `pool`: the pool the request is limited to, named when it has no worker.
    mutating func route(_ id: String, workers: [PeerID: String], now: Double, pool: String? = nil) -> Step {
        guard var request = pending[id] else { return .wait }
        let ranked = Self.rendezvous(mediaID: request.mediaID, workers: Array(workers.values))
        guard let workerID = ranked.first(where: { !request.tried.contains($0) }),
              let identity = workers.first(where: { $0.value == workerID })?.key else {
            guard !workers.isEmpty && ranked.allSatisfy(request.tried.contains) || now - request.created > Self.patienceSeconds else {
                return .wait
            }
            pending[id] = nil
            let error = FarmError(.noAnswer, workers.isEmpty ? "no live workers" + (pool.map { " in pool \($0)" } ?? "")
                                  : "no worker could serve it (tried \(request.tried.sorted().joined(separator: ", ")))")
            return .fail(request.client, StillsReply(requestID: request.request.requestID, worker: "", results: [], invalid: nil,
                                                    error: error, missing: []))
        }
        request.worker = identity
        request.sentAt = now
        request.tried.insert(workerID)
        pending[id] = request
        var forwarded = request.request
        forwarded.requestID = id
        return .send(identity, forwarded)
    }

    /// A worker's answer: the requester's reply (under its own request id), or `nil` when
    /// the answer is late or the request is to be tried on another worker (`retry`).
    mutating func answer(_ reply: StillsReply, from identity: PeerID, liveWorkers: Int) -> (client: Requester, reply: StillsReply)?? {
        guard let request = pending[reply.requestID], request.worker == identity else { return nil }   // late: already re-sent
        // Another worker may succeed where one failed, not where the request itself is
        // refused (the URL policy, a changed object: every worker would say the same).
        if let error = reply.error, !error.code.failsTheJob, liveWorkers > request.tried.count {
            pending[reply.requestID]?.worker = nil
            return .some(nil)
        }
        pending[reply.requestID] = nil
        var answer = reply
        answer.requestID = request.request.requestID
        return (request.client, answer)
    }

    /// Requests whose worker is gone or silent: to be routed again.
    mutating func stalled(now: Double, isLive: (PeerID) -> Bool) -> [String] {
        var ids: [String] = []
        for (id, request) in pending where request.worker.map({ !isLive($0) }) ?? true || now - request.sentAt > Self.silentSeconds {
            pending[id]?.worker = nil
            ids.append(id)
        }
        return ids.sorted()
    }

    /// Whether `identity` serves a request that reads `contentID` (it may fetch that media).
    func serves(_ identity: PeerID, contentID: String) -> Bool {
        pending.values.contains { $0.worker == identity && $0.request.files.values.contains(contentID) }
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
