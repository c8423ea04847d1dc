import Synchronization

/// Which client keys have sent which files this run, for the submissions threads, which read
/// the store through its own connection and so does not see the loop's writes until their
/// turn is committed: a client that has just sent a file's bytes and submits at once is
/// not told it is missing. The store keeps the record for later runs (`JobStore.holds`).
final class MediaHolders: Sendable {
    private let shown = Mutex<Set<String>>([])

    func record(_ owner: String, _ contentID: String) { _ = shown.withLock { $0.insert(owner + " " + contentID) } }

    func contains(_ owner: String, _ contentID: String) -> Bool { shown.withLock { $0.contains(owner + " " + contentID) } }
}
