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
    let pool: ClientPool

    /// Calls at once; each holds one thread for at most `timeoutSeconds`.
    public static let concurrentCalls = 16
    /// Of those, one API client's at once.
    public static let callsPerClient = 4
    public static let timeoutSeconds = 30.0

    public init(endpoint: String, curve: CurveClient?) {
        self.init(endpoint: endpoint, curve: curve, pool: ClientPool())
    }

    init(endpoint: String, curve: CurveClient?, pool: ClientPool) {
        self.endpoint = endpoint
        self.curve = curve
        self.pool = pool
        turns = Turns(Self.concurrentCalls, perClient: Self.callsPerClient)
    }

    /// The one ZeroMQ context of the process's HTTP side: every pooled connection and every
    /// event stream's socket lives in it (a context is a thread and its queues; one per
    /// connection was 16 and more). Nil only if libzmq could not make one: then each
    /// connection makes its own, as before.
    /// Room for a socket per followed job beyond libzmq's default of 1,023.
    static let context: ZMQContext? = try? ZMQContext(maxSockets: 16_384)

    /// A new connection to the coordinator, in the process's context.
    func client() throws -> FarmClient {
        let client = try FarmClient(endpoint: endpoint, curve: curve, context: Self.context)
        client.timeoutSeconds = Self.timeoutSeconds
        return client
    }

    /// `client`: whose share the call takes (a token's holder); nil for admins and signed URLs.
    func call<T: Sendable>(for client: String? = nil, _ body: @escaping @Sendable (FarmClient) throws -> T) async throws -> T {
        await turns.take(for: client)
        defer { turns.give(for: client) }
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

/// Idle connections to the coordinator, each lent to one call at a time. The pool shrinks
/// when idle: a connection not lent for `idleSeconds` is closed at the next borrow or
/// return, so a burst of 16 calls does not keep 16 sockets (and their threads) for good.
final class ClientPool: Sendable {
    /// A connection out of the pool: used by the one call it was lent to.
    struct Lent: @unchecked Sendable {
        let client: FarmClient
    }

    /// Idle connections, the most recently returned last, with when each was returned.
    private let idle = Mutex<[(lent: Lent, since: Double)]>([])
    private let made = Atomic<Int>(0)
    private let lends = Atomic<Int>(0)
    let idleSeconds: Double
    private let now: @Sendable () -> Double

    init(idleSeconds: Double = 60, now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) {
        self.idleSeconds = idleSeconds
        self.now = now
    }

    /// Connections made since the pool was (for its test: one for many calls in a row).
    var connectionsMade: Int { made.load(ordering: .relaxed) }
    /// Calls to the coordinator since the pool was (for the test that a route makes one).
    var callsMade: Int { lends.load(ordering: .relaxed) }
    /// Connections open and not lent now.
    var idleCount: Int { idle.withLock { $0.count } }

    func borrow(make: () throws -> FarmClient) throws -> Lent {
        lends.add(1, ordering: .relaxed)
        let (reused, stale) = idle.withLock { idle in (idle.popLast()?.lent, Self.takeStale(&idle, before: now() - idleSeconds)) }
        _ = stale   // closed here, outside the lock, as the array is released
        if let reused { return reused }
        made.add(1, ordering: .relaxed)
        return Lent(client: try make())
    }

    func giveBack(_ lent: Lent) {
        let time = now()
        let stale = idle.withLock { idle in
            idle.append((lent, time))
            return Self.takeStale(&idle, before: time - idleSeconds)
        }
        _ = stale
    }

    /// Removes the connections returned before `cutoff` (the oldest are first) and hands
    /// them back, to be closed by their release outside the lock.
    private static func takeStale(_ idle: inout [(lent: Lent, since: Double)], before cutoff: Double) -> [Lent] {
        let count = idle.prefix { $0.since < cutoff }.count
        let stale = idle.prefix(count).map(\.lent)
        idle.removeFirst(count)
        return stale
    }

    /// Whether an error is the coordinator's answer (the request and its reply are over),
    /// rather than the client's giving up.
    static func exchangeEnded(_ error: FarmError) -> Bool {
        error.code != .noAnswer && error.code != .handshakeFailed
    }
}

/// A counting semaphore whose waiters are suspended tasks, not blocked threads, shared
/// fairly (docs/operations.md, "Limits"): one client (a token's holder) holds at most
/// `perClient` turns at once, and when a turn frees, the clients waiting take it in
/// turn, oldest first within a client. Twenty calls of one client stuck on a hanging
/// origin hold its share, never every turn. Calls without a client (admins, signed URLs,
/// a loopback API without tokens) share the rest as one queue, uncapped.
final class Turns: Sendable {
    private struct State {
        var free: Int
        var held: [String: Int] = [:]
        var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
        /// Clients with waiters, in the order they take the next free turn.
        var rotation: [String] = []
    }

    private let state: Mutex<State>
    let perClient: Int
    /// The key of calls that belong to no client.
    private static let shared = ""

    init(_ count: Int, perClient: Int? = nil) {
        state = Mutex(State(free: count))
        self.perClient = max(1, perClient ?? count)
    }

    func take(for client: String? = nil) async {
        let key = client ?? Self.shared
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                // A free turn is taken at once unless a waiting client may have it first.
                if s.free > 0, self.mayTake(key, s), !s.rotation.contains(where: { self.mayTake($0, s) }) {
                    s.free -= 1
                    s.held[key, default: 0] += 1
                    return true
                }
                if s.waiting[key] == nil { s.rotation.append(key) }
                s.waiting[key, default: []].append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Gives back a turn of `client`'s; the next client in the rotation that may take one
    /// gets it.
    func give(for client: String? = nil) {
        let key = client ?? Self.shared
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            let left = s.held[key, default: 1] - 1
            s.held[key] = left > 0 ? left : nil
            s.free += 1
            guard let index = s.rotation.firstIndex(where: { mayTake($0, s) }) else { return nil }
            let chosen = s.rotation.remove(at: index)
            var queue = s.waiting[chosen] ?? []
            let continuation = queue.removeFirst()
            if queue.isEmpty {
                s.waiting[chosen] = nil
            } else {
                s.waiting[chosen] = queue
                s.rotation.append(chosen)
            }
            s.free -= 1
            s.held[chosen, default: 0] += 1
            return continuation
        }
        next?.resume()
    }

    /// Turns `client` holds and its calls waiting for one.
    func counts(_ client: String?) -> (held: Int, waiting: Int) {
        let key = client ?? Self.shared
        return state.withLock { ($0.held[key, default: 0], $0.waiting[key]?.count ?? 0) }
    }

    private func mayTake(_ key: String, _ s: State) -> Bool {
        key == Self.shared || s.held[key, default: 0] < perClient
    }
}
