import Foundation
import Synchronization

/// Threads of event loops that must never block on a disk or a hash (docs/architecture.md,
/// "The I/O lane"). In a debug build a blocking call made on such a thread stops the
/// process, as swift-nio's `assertInEventLoop` does, so a test catches it; a release
/// build checks nothing.
public enum LoopGuard {
    #if DEBUG
    private static let loops = Mutex<Set<UInt>>([])
    #endif

    /// The calling thread runs an event loop from now on.
    public static func enterLoop() {
        #if DEBUG
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

    /// Called by work that blocks (hashing a file or a chunk, decompressing a chunk).
    @inline(__always)
    public static func assertMayBlock(_ what: @autoclosure () -> String) {
        #if DEBUG
        // `fatalError`, not `assertionFailure`: this module is optimised in debug builds too,
        // where assertions are off.
        if onLoop { fatalError("\(what()) on an event loop's thread: run it on the I/O lane") }
        #endif
    }
}
