import Farm
import Foundation
import Synchronization

/// The HTTP process's followers of jobs (docs/api.md, "Events"): one coordinator
/// subscription per job, however many event streams follow it, fanned out to each; the
/// subscription ends when the job does or when its last stream's client leaves. A new
/// stream starts with the newest status. Each stream keeps only the newest status it has
/// not sent yet: a slow client skips intermediate progress, never the final state, and
/// never holds memory for it.
public final class JobEvents: Sendable {
    /// Streams open at once, in all and per client (docs/operations.md, "Limits"): a
    /// stream costs a few kilobytes, but each is a connection, and descriptors run out.
    public struct Budget: Sendable {
        public var total = 1024
        public var perClient = 64

        public init() {}
    }

    /// Over the budget: answered 429 with `Retry-After`.
    struct OverBudget: Error {
        let message: String
    }

    private struct Follow {
        var subscribers: [UUID: AsyncThrowingStream<JobStatus, any Error>.Continuation] = [:]
        var latest: JobStatus?
        let stop = StopSignal()
    }

    private let gateway: FarmGateway
    private let budget: Budget
    private let follows = Mutex<[String: Follow]>([:])
    /// Open streams by client, and their sum.
    private let open = Mutex<(byClient: [String: Int], total: Int)>(([:], 0))

    init(gateway: FarmGateway, budget: Budget = Budget()) {
        self.gateway = gateway
        self.budget = budget
    }

    /// Streams open now (for tests and metrics).
    var openStreams: Int { open.withLock { $0.total } }

    /// Jobs followed now (for tests and metrics).
    var followed: Int { follows.withLock { $0.count } }

    /// The job's statuses: the newest now, then each change, ending after the final one.
    /// `client` names who asks, for the per-client budget; over a budget, `OverBudget`.
    func stream(_ jobID: String, client: String) throws -> AsyncThrowingStream<JobStatus, any Error> {
        try open.withLock { open in
            if open.total >= budget.total {
                throw OverBudget(message: "the API serves at most \(budget.total) event streams at once; try again shortly")
            }
            if open.byClient[client, default: 0] >= budget.perClient {
                throw OverBudget(message: "a client may follow at most \(budget.perClient) event streams at once")
            }
            open.byClient[client, default: 0] += 1
            open.total += 1
        }
        let (stream, continuation) = AsyncThrowingStream<JobStatus, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let start = follows.withLock { all -> Bool in
            let isNew = all[jobID] == nil
            var follow = all[jobID] ?? Follow()
            follow.subscribers[id] = continuation
            if let latest = follow.latest { continuation.yield(latest) }
            all[jobID] = follow
            return isNew
        }
        continuation.onTermination = { [weak self] _ in
            self?.leave(jobID, id)
            self?.close(client)
        }
        if start { follow(jobID) }
        return stream
    }

    private func close(_ client: String) {
        open.withLock { open in
            open.total -= 1
            open.byClient[client, default: 1] -= 1
            if open.byClient[client] == 0 { open.byClient[client] = nil }
        }
    }

    private func leave(_ jobID: String, _ id: UUID) {
        follows.withLock { all in
            all[jobID]?.subscribers[id] = nil
            if all[jobID]?.subscribers.isEmpty == true {
                all[jobID]?.stop.raise()
                all[jobID] = nil
            }
        }
    }

    /// One thread, one client connection for the job, until it ends or nobody listens.
    private func follow(_ jobID: String) {
        guard let stop = follows.withLock({ $0[jobID]?.stop }) else { return }
        let gateway = gateway
        let thread = Thread { [weak self] in
            var failure: (any Error)?
            do {
                let client = try gateway.client()
                let final = try client.watch(jobID, stop: stop) { self?.publish(jobID, $0, stop: stop) }
                self?.publish(jobID, final, stop: stop)
            } catch {
                failure = error
            }
            self?.end(jobID, stop: stop, failure: failure)
        }
        thread.name = "events \(jobID.prefix(16))"
        thread.start()
    }

    private func publish(_ jobID: String, _ status: JobStatus, stop: StopSignal) {
        follows.withLock { all in
            guard all[jobID]?.stop === stop else { return }
            all[jobID]?.latest = status
            guard let subscribers = all[jobID]?.subscribers.values else { return }
            for subscriber in subscribers { subscriber.yield(status) }
        }
    }

    /// The follow is over: every stream ends (with the error, if it failed).
    private func end(_ jobID: String, stop: StopSignal, failure: (any Error)?) {
        let subscribers = follows.withLock { all -> [AsyncThrowingStream<JobStatus, any Error>.Continuation] in
            guard let follow = all[jobID], follow.stop === stop else { return [] }
            all[jobID] = nil
            return Array(follow.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish(throwing: failure) }
    }
}
