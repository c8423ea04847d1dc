import Farm
import Foundation
import Synchronization

/// The HTTP API's way to the coordinator (docs/api.md, "How it works"): the API speaks
/// the farm's own protocol to the coordinator of its process, one client connection per
/// request, so the coordinator stays the one place that validates, schedules and
/// stores. The ZeroMQ calls block, so they run on Dispatch's pool, never on the HTTP
/// server's event loops — at most `concurrentCalls` at once: the others wait for a turn
/// without holding a thread, so a stalled coordinator cannot take every thread.
public struct FarmGateway: Sendable {
    let endpoint: String
    let curve: CurveClient?
    private let turns: Turns

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
        return try await blocking { try body(try gateway.client()) }
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
