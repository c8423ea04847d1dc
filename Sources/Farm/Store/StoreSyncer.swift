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
    private let dirty = Mutex<Bool>(false)
    private let stop = StopSignal()
    private let wake = DispatchSemaphore(value: 0)

    /// Opens its connection on its thread; a store that cannot be opened fails the start.
    public init(path: String, report: @escaping @Sendable (String) -> Void) throws {
        let opened = Mutex<(any Error)?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            let database: SQLiteDatabase
            do {
                database = try SQLiteDatabase(path: path)
            } catch {
                opened.withLock { $0 = error }
                ready.signal()
                return
            }
            ready.signal()
            var lastCheckpoint = Date()
            var failing = false
            while !stop.isRaised {
                _ = wake.wait(timeout: .now() + Self.syncSeconds)
                let due = dirty.withLock { was in defer { was = false }; return was }
                do {
                    if due { try Self.sync(path + "-wal") }
                    if Date().timeIntervalSince(lastCheckpoint) >= Self.checkpointSeconds {
                        try database.execute("PRAGMA wal_checkpoint(PASSIVE)")
                        lastCheckpoint = Date()
                    }
                    failing = false
                } catch {
                    if !failing { report("the job store's log cannot be synced: \(error)") }
                    failing = true
                    if due { dirty.withLock { $0 = true } }   // tried again next time
                }
            }
        }
        thread.name = "store-sync"
        thread.start()
        ready.wait()
        if let error = opened.withLock({ $0 }) { throw error }
    }

    /// The loop committed: the log is synced within `syncSeconds`.
    public func committed() { dirty.withLock { $0 = true } }

    public func shutDown() {
        stop.raise()
        wake.signal()
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
