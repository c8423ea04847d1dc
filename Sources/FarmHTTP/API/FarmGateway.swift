import Farm
import Foundation
import Synchronization

/// The HTTP API's way to the coordinator (docs/api.md, "How it works"): the API speaks
/// the farm's own protocol to the coordinator of its process, so the coordinator stays
/// the one place that validates, schedules and stores. Connections are kept in a pool
/// (at most `concurrentCalls`, one call on each at a time) rather than made per request:
/// a connection is a ZeroMQ context, a socket and a handshake. The ZeroMQ calls block, so
/// they run on Dispatch's pool, never on the HTTP server's event loops — at most
/// `concurrentCalls` at once: the others wait for a turn without holding a thread, so a
/// stalled coordinator cannot take every thread. Event streams have connections of their
/// own (`client()`), which are not pooled: the coordinator keeps pushing to a follower.
public struct FarmGateway: Sendable {
    let endpoint: String
    let curve: CurveClient?
    private let turns: Turns
    let pool = ClientPool()

    /// Calls at once; each holds one thread for at most `timeoutSeconds`.
    public static let concurrentCalls = 16
    public static let timeoutSeconds = 30.0

    public init(endpoint: String, curve: CurveClient?) {
        self.endpoint = endpoint
        self.curve = curve
        turns = Turns(Self.concurrentCalls)
    }

    /// A new connection to the coordinator.
    func client() throws -> FarmClient {
        let client = try FarmClient(endpoint: endpoint, curve: curve)
        client.timeoutSeconds = Self.timeoutSeconds
        return client
    }

    func call<T: Sendable>(_ body: @escaping @Sendable (FarmClient) throws -> T) async throws -> T {
        await turns.take()
        defer { turns.give() }
        let gateway = self
        return try await blocking {
            let lent = try gateway.pool.borrow { try gateway.client() }
            do {
                let result = try body(lent.client)
                gateway.pool.giveBack(lent)
                return result
            } catch let error as FarmError where ClientPool.exchangeEnded(error) {
                gateway.pool.giveBack(lent)   // the coordinator answered: the connection is as good as before
                throw error
            }
            // Anything else (no answer in time, a handshake refused, a socket error) may leave
            // a late answer on its way: the connection is dropped, not lent again.
        }
    }
}

/// Idle connections to the coordinator, each lent to one call at a time.
final class ClientPool: Sendable {
    /// A connection out of the pool: used by the one call it was lent to.
    struct Lent: @unchecked Sendable {
        let client: FarmClient
    }

    private let idle = Mutex<[Lent]>([])
    private let made = Atomic<Int>(0)

    /// Connections made since the pool was (for its test: one for many calls in a row).
    var connectionsMade: Int { made.load(ordering: .relaxed) }

    func borrow(make: () throws -> FarmClient) throws -> Lent {
        if let lent = idle.withLock({ $0.popLast() }) { return lent }
        made.add(1, ordering: .relaxed)
        return Lent(client: try make())
    }

    func giveBack(_ lent: Lent) { idle.withLock { $0.append(lent) } }

    /// Whether an error is the coordinator's answer (the request and its reply are over),
    /// rather than the client's giving up.
    static func exchangeEnded(_ error: FarmError) -> Bool {
        error.code != .noAnswer && error.code != .handshakeFailed
    }
}

/// A counting semaphore whose waiters are suspended tasks, not blocked threads.
final class Turns: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ count: Int) { state = Mutex(State(free: count)) }

    func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.free > 0 {
                    s.free -= 1
                    return true
                }
                s.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Hands the turn to the longest waiter, or frees it.
    func give() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiting.isEmpty {
                s.free += 1
                return nil
            }
            return s.waiting.removeFirst()
        }
        next?.resume()
    }
}
