import Synchronization

/// Values handed from worker threads to an event loop, which takes them all at once.
/// `wakes`: the loop's wakeup, signalled at each post, so that the loop takes the value at
/// once instead of at its next timer tick (up to 100 ms later for the coordinator).
final class Inbox<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    private let wakeup: Wakeup?

    init(wakes wakeup: Wakeup? = nil) {
        self.wakeup = wakeup
    }

    func post(_ item: Element) {
        items.withLock { $0.append(item) }
        wakeup?.signal()
    }

    /// Wakes the loop without a value (work that ended with nothing to hand over).
    func wake() { wakeup?.signal() }

    func take() -> [Element] {
        items.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}
