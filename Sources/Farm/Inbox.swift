import Synchronization

/// Values handed from worker threads to an event loop, which takes them all at once.
final class Inbox<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    init() {}

    func post(_ item: Element) { items.withLock { $0.append(item) } }

    func take() -> [Element] {
        items.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}
