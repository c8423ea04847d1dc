import Foundation
import Synchronization

/// A flag one thread raises and a loop on another checks.
public final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)
    private let wakes = Mutex<[@Sendable () -> Void]>([])
    public init() {}

    public func raise() {
        flag.store(true, ordering: .relaxed)
        for wake in wakes.withLock({ $0 }) { wake() }
    }

    public var isRaised: Bool { flag.load(ordering: .relaxed) }

    /// Calls `wake` when the signal is raised (at once if it is already): a loop that polls
    /// returns then, not at its poll's time-out (`reel render` stops its farm in
    /// milliseconds, not in two 100-ms polls).
    public func wakes(_ wake: @escaping @Sendable () -> Void) {
        wakes.withLock { $0.append(wake) }
        if isRaised { wake() }
    }
}
