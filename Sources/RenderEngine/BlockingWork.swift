import Synchronization

/// Work of this module that holds its thread for a millisecond or more (hashing a file, or
/// a megabyte) announces itself here, so that a program with event loops can refuse it on
/// their threads: the farm's `LoopGuard` listens in a debug build. With no listener (a
/// release build, `reel render`'s engine alone) an announcement costs one load.
public enum BlockingWork {
    private static let listener = Mutex<(@Sendable (() -> String) -> Void)?>(nil)
    private static let listening = Atomic<Bool>(false)

    /// Sets the one listener (the last call wins).
    public static func listen(_ body: @escaping @Sendable (() -> String) -> Void) {
        listener.withLock { $0 = body }
        listening.store(true, ordering: .releasing)
    }

    @inline(__always)
    public static func announce(_ what: @autoclosure () -> String) {
        guard listening.load(ordering: .acquiring), let body = listener.withLock({ $0 }) else { return }
        withoutActuallyEscaping(what) { body($0) }
    }
}
