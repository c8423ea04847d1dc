import Foundation
import Synchronization

/// Work waiting per client, handed to a lane's threads so that no client holds more than
/// one at a time and clients take turns (docs/operations.md, "Limits"): one client's
/// 10,000-variant batch or slow origin delays only that client's next submission.
final class FairQueue<Item: Sendable>: LaneQueue, Sendable {
    /// An item and the client it waits for.
    struct Turn: Sendable {
        var client: String
        var item: Item
    }

    private struct State {
        /// Each client's items, oldest first.
        var waiting: [String: [Item]] = [:]
        /// Clients with items and no thread, in turn order.
        var turns: [String] = []
        /// Clients a thread is working for.
        var busy: Set<String> = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)

    func post(_ item: Item, client: String) {
        state.withLock { s in
            s.waiting[client, default: []].append(item)
            if !s.busy.contains(client), !s.turns.contains(client) { s.turns.append(client) }
        }
        ready.signal()
    }

    /// The next client's oldest item, once one may be worked on. The client is busy until
    /// `finished` is called with it.
    func next(thread: Int, timeout: Double?) -> LaneTake<Turn> {
        let deadline = timeout.map { DispatchTime.now() + $0 }
        while true {
            let taken = state.withLock { s -> LaneTake<Turn>? in
                if s.stopped { return .stopped }
                guard !s.turns.isEmpty else { return nil }
                let client = s.turns.removeFirst()
                guard var items = s.waiting[client], !items.isEmpty else { return nil }
                let item = items.removeFirst()
                s.waiting[client] = items.isEmpty ? nil : items
                s.busy.insert(client)
                return .request(Turn(client: client, item: item))
            }
            if let taken = ready.handOut(taken) { return taken }
            if !ready.wait(until: deadline) { return .timedOut }
        }
    }

    /// A thread has finished the client's item: its next one, if any, takes its turn last.
    func finished(_ turn: Turn) {
        let more = state.withLock { s -> Bool in
            s.busy.remove(turn.client)
            guard s.waiting[turn.client] != nil else { return false }
            s.turns.append(turn.client)
            return true
        }
        if more { ready.signal() }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        ready.signal()
    }
}
