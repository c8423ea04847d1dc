import Foundation
import Synchronization

/// Work waiting per client, handed to a pool of threads so that no client holds more than
/// one at a time and clients take turns (docs/operations.md, "Limits"): one client's
/// 10,000-variant batch or slow origin delays only that client's next submission.
final class FairQueue<Item: Sendable>: Sendable {
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

    /// The next client's oldest item, once one may be worked on; nil once stopped. The
    /// caller calls `done(client)` when it has finished with it.
    func next() -> (client: String, item: Item)? {
        while true {
            let taken = state.withLock { s -> (String, Item)?? in
                if s.stopped { return .some(nil) }
                guard !s.turns.isEmpty else { return nil }
                let client = s.turns.removeFirst()
                guard var items = s.waiting[client], !items.isEmpty else { return nil }
                let item = items.removeFirst()
                s.waiting[client] = items.isEmpty ? nil : items
                s.busy.insert(client)
                return .some((client, item))
            }
            switch taken {
            case .some(let next): return next
            case .none: ready.wait()
            }
        }
    }

    /// The thread has finished `client`'s item: its next one, if any, takes its turn last.
    func done(_ client: String) {
        let more = state.withLock { s -> Bool in
            s.busy.remove(client)
            guard s.waiting[client] != nil else { return false }
            s.turns.append(client)
            return true
        }
        if more { ready.signal() }
    }

    func stop(threads: Int) {
        state.withLock { $0.stopped = true }
        for _ in 0..<threads { ready.signal() }
    }
}
