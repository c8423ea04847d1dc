import Foundation
import Logging
import RenderEngine
import SessionKit

/// A coordinator that stands by (docs/operations.md, "A standby coordinator"): it listens
/// where it would lead, answers clients' reads (a job's status, the job list, a batch, a
/// job's shards) from the shared store, refuses every worker and every write with
/// `notLeader` (the worker, or the client, goes to the next coordinator it was given), and
/// tries for the lead every second. It returns the term it won; the process then starts
/// a `Coordinator` on the same address, which resumes the farm's jobs from the store as a
/// restart does.
final class Standby {
    private let options: Coordinator.Options
    private let lease: LeaderLease
    private let logger: Logger
    private let store: LaneStore

    init(options: Coordinator.Options, lease: LeaderLease, logger: Logger) throws {
        self.options = options
        self.lease = lease
        self.logger = logger
        store = try LaneStore(at: options.store)
    }

    /// Serves until it leads (its term) or its stop is raised (nil).
    func run() throws -> LeaderLease.Term? {
        // The first try comes before the socket opens: a farm's first coordinator leads at once.
        if let term = try lease.tryToLead(endpoint: options.endpoint) { return term }
        let (context, socket, authenticator) = try Coordinator.openSocket(options, logger: logger)
        defer {
            socket.close()
            authenticator?.stop()
            _ = context   // the context outlives its socket
        }
        try socket.bind(options.endpoint)
        let holder = try lease.holder()
        logger.info("standing by at \(socket.lastEndpoint): \(holder.map { "\($0.candidate) leads at \($0.endpoint) (term \($0.term))" } ?? "no one leads yet")")
        var nextTry = Date().addingTimeInterval(LeaderLease.retrySeconds)
        while !options.stop.isRaised {
            options.pulse.beat()
            if try ZMQSocket.poll([socket], timeoutMillis: 100)[0] {
                var handled = 0
                while handled < 100, let (frames, userID) = try socket.receiveWithUser() {
                    if let reply = answer(frames, userID: userID), let identity = frames.first {
                        try? socket.send([.bytes(identity)] + reply.frames)   // a peer that does not read loses its answer
                    }
                    handled += 1
                }
            }
            if Date() >= nextTry {
                if let term = try lease.tryToLead(endpoint: options.endpoint) { return term }
                nextTry = Date().addingTimeInterval(LeaderLease.retrySeconds)
            }
        }
        return nil
    }

    /// The answer to one message: a read from the store, or `notLeader`.
    private func answer(_ frames: [Data], userID: String?) -> WireMessage? {
        guard frames.count >= 2, let message = try? WireMessage.parse(Array(frames.dropFirst())) else { return nil }
        do {
            let credentials = try PeerCredentials.of(message.type, userID: userID, curve: options.curve)
            return try read(message, credentials: credentials)
        } catch {
            let refusal = FarmError.from(error)
            let type: MessageType = refusal.code == .notLeader && Self.workerMessages.contains(message.type) ? .refused : .error
            return try? WireMessage(type, FarmError(refusal.code, Coordinator.scrub(refusal.message, naming: options.publicDirectories)))
        }
    }

    static let workerMessages: Set<MessageType> = [.hello, .heartbeat, .chunk, .failed, .mediaRequest, .stillsReply]

    private func read(_ message: WireMessage, credentials: PeerCredentials?) throws -> WireMessage {
        let maker = JobStatusMaker(live: [:], endedUncommitted: [:], assemblyTimes: [:], finishedPeakRSS: [:], mediaBytesSent: [:],
                                   framesPerSecond: [:], paused: nil, directories: options.publicDirectories)
        switch message.type {
        case .status:
            let request = try message.decode(StatusRequest.self)
            let scope = ReadScope(credentials, naming: request.owner)
            if let id = request.jobID {
                let jobs = try store.job(id).flatMap { scope.sees($0.summary.owner) ? $0 : nil }.map { [maker.status(of: $0.summary, stored: $0)] } ?? []
                return try WireMessage(.statusReply, StatusReply(jobs: jobs))
            }
            if let batch = request.batch {
                let jobs = try store.batch(batch, live: []).filter { scope.sees($0.summary.owner) }.map { maker.status(of: $0.summary, stored: $0) }
                return try WireMessage(.statusReply, StatusReply(jobs: jobs))
            }
            let rows = try store.page(owner: scope.owner, after: try request.cursor(), limit: request.pageLimit, live: [])
            return try WireMessage(.statusReply, StatusReply(jobs: rows.map { maker.status(of: $0.summary, stored: $0) },
                                                             next: StoredJob.nextCursor(after: rows, limit: request.pageLimit)))
        case .watch:
            // One status now; a watcher asks again when nothing more comes (`FarmClient.watch`).
            let request = try message.decode(JobRequest.self)
            let scope = ReadScope(credentials, naming: request.onBehalfOf)
            guard let status = try store.job(request.jobID).flatMap({ scope.sees($0.summary.owner) ? $0 : nil })
                .map({ maker.status(of: $0.summary, stored: $0) }) else {
                throw FarmError(.noSuchJob, "no job \(request.jobID)")
            }
            return try WireMessage(.progress, status)
        case .shards:
            let request = try message.decode(JobRequest.self)
            guard let job = try store.job(request.jobID) else { throw FarmError(.noSuchJob, "no job \(request.jobID)") }
            try ReadScope(credentials, naming: request.onBehalfOf).check(request.jobID, ownedBy: job.summary.owner)
            return try WireMessage(.shardsReply, ShardsReply(shards: try store.shardDetails(of: request.jobID, now: Date().timeIntervalSince1970)))
        case .workers:
            return try WireMessage(.workersReply, WorkersReply(workers: []))   // workers join the leader
        default:
            let holder = try? lease.holder()
            throw FarmError(.notLeader, "this coordinator stands by"
                + (holder.map { "; \($0.candidate) leads at \($0.endpoint)" } ?? "; a new leader is being chosen: retry in a few seconds"))
        }
    }
}
