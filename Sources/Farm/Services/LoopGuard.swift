import Foundation
import RenderEngine
import Synchronization

/// Threads of event loops that must never block on a disk, a hash or a large query
/// (docs/architecture.md, "The loop does not block"). In a debug build a blocking call
/// made on such a thread stops the process, as swift-nio's `assertInEventLoop` does, so
/// the test that drives it fails; a release build checks nothing. Blocking calls say so
/// through `assertMayBlock`: the coordinator's file-system calls (`Disk`), the store's
/// statements over more than a handful of rows, and the engine's hashing (`BlockingWork`).
public enum LoopGuard {
    #if DEBUG
    private static let loops = Mutex<Set<UInt>>([])
    /// The engine's announcements reach `assertMayBlock` once any loop has started.
    private static let listening: Void = BlockingWork.listen { what in LoopGuard.assertMayBlock(what()) }
    #endif

    /// The calling thread runs an event loop from now on.
    public static func enterLoop() {
        #if DEBUG
        _ = listening
        loops.withLock { _ = $0.insert(UInt(pthread_self())) }
        #endif
    }

    public static func leaveLoop() {
        #if DEBUG
        loops.withLock { _ = $0.remove(UInt(pthread_self())) }
        #endif
    }

    /// Whether the calling thread is a loop's (always false in a release build).
    public static var onLoop: Bool {
        #if DEBUG
        loops.withLock { $0.contains(UInt(pthread_self())) }
        #else
        false
        #endif
    }

    /// Called by work that blocks: a file-system call, a hash of a file or a megabyte, a
    /// query over many rows.
    @inline(__always)
    public static func assertMayBlock(_ what: @autoclosure () -> String) {
        #if DEBUG
        // `fatalError`, not `assertionFailure`: optimised debug builds turn assertions off.
        if onLoop { fatalError("\(what()) on an event loop's thread: run it on a lane (docs/architecture.md)") }
        #endif
    }
}
