import Foundation
import Synchronization

/// When a process's main loop last went round: `/healthz` answers 503 when it has not for
/// a while (a wedged loop, not a busy one — the loop turns at least every 100 ms).
public final class LoopPulse: Sendable {
    private let lastBeat = Atomic<Int64>(0)

    public init() {}

    public func beat() { lastBeat.store(Self.nowMillis, ordering: .relaxed) }

    /// Seconds since the last beat; `nil` before the first.
    public var secondsSinceBeat: Double? {
        let last = lastBeat.load(ordering: .relaxed)
        return last == 0 ? nil : Double(Self.nowMillis - last) / 1000
    }

    private static var nowMillis: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
