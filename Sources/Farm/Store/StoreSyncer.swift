import Foundation
import Synchronization

/// Makes the coordinator's commits durable off its loop (docs/operations.md, "Disks").
/// The loop commits each turn to SQLite's write-ahead log without syncing it
/// (`synchronous=NORMAL`): an fsync behind gigabytes of chunk and upload writes held the
/// loop for 10–15 ms a turn. This thread syncs the log within `syncSeconds` of a commit
/// (`fdatasync` of the `-wal` file: every commit before it survives a power cut) and
/// checkpoints it into the database about once a second on its own connection, which the
/// loop's no longer does. A process that crashes loses nothing either way; a power cut
/// loses at most the last `syncSeconds` of state changes, and replies sent then were
/// already sent before their commit.
public final class StoreSyncer: Sendable {
    public static let syncSeconds = 0.1
    static let checkpointSeconds = 1.0
    private let dirty: Dirty
    private let thread: LaneThreads<SharedQueue<Never>>

    /// What the syncing thread keeps between ticks.
    private struct ThreadState {
        let database: SQLiteDatabase
        var lastCheckpoint = Date()
        var failing = false
    }

    /// Opens its connection on its thread; a store that cannot be opened fails the start.
    public init(path: String, report: @escaping @Sendable (String) -> Void) throws {
        let dirty = Dirty()
        self.dirty = dirty
        thread = try LaneThreads(name: "store-sync", queue: SharedQueue<Never>(), tick: Self.syncSeconds, open: { _ in
            ThreadState(database: try SQLiteDatabase(path: path))
        }, handle: { _, _ in }, onTick: { state in
            let due = dirty.take()
            do {
                if due { try Self.sync(path + "-wal") }
                if Date().timeIntervalSince(state.lastCheckpoint) >= Self.checkpointSeconds {
                    try state.database.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    state.lastCheckpoint = Date()
                }
                state.failing = false
            } catch {
                if !state.failing { report("the job store's log cannot be synced: \(error)") }
                state.failing = true
                if due { dirty.mark() }   // tried again next time
            }
        })
    }

    /// The loop committed: the log is synced within `syncSeconds`.
    public func committed() { dirty.mark() }

    public func shutDown() { thread.stop() }

    /// Whether a commit waits for its sync.
    private final class Dirty: Sendable {
        private let value = Mutex(false)
        func mark() { value.withLock { $0 = true } }
        /// Whether it was marked, unmarking it.
        func take() -> Bool { value.withLock { was in defer { was = false }; return was } }
    }

    private static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return }   // no log yet: nothing committed to it
            throw SQLiteDatabase.Failure(description: "\(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        guard fdatasync(fd) == 0 else { throw SQLiteDatabase.Failure(description: "fdatasync \(path): \(String(cString: strerror(errno)))") }
    }
}
