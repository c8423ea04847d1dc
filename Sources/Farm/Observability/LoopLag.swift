import Foundation
import Metrics
import Synchronization

/// How long the coordinator's loop kept work waiting (docs/operations.md, "Loop lag"):
/// from a message's arrival to its handling, and from a timer's due time to its firing.
/// Exported as the histogram `reel_coordinator_loop_lag_seconds`; kept here too, in
/// log-spaced bins (ten a decade, 1 µs … 100 s), for the count, quantiles and maximum a
/// benchmark or a test reads in process.
public final class LoopLag: Sendable {
    public struct Summary: Sendable, CustomStringConvertible {
        public var count: Int
        public var p50: Double
        public var p99: Double
        public var max: Double

        public var description: String {
            String(format: "%d waits: p50 %.2f ms, p99 %.2f ms, max %.1f ms", count, p50 * 1000, p99 * 1000, max * 1000)
        }
    }

    static let binsPerDecade = 10.0
    static let smallest = 1e-6
    static let binCount = 80   // 1 µs … 100 s
    private let state = Mutex<(bins: [Int], count: Int, max: Double)>((Array(repeating: 0, count: LoopLag.binCount), 0, 0))
    static let metric = Metrics.Timer(label: "reel_coordinator_loop_lag_seconds")

    public init() {}

    public func record(_ seconds: Double) {
        let wait = Swift.max(0, seconds)
        Self.metric.recordSeconds(wait)
        let bin = wait <= Self.smallest ? 0 : Swift.min(Self.binCount - 1, Int(log10(wait / Self.smallest) * Self.binsPerDecade) + 1)
        state.withLock {
            $0.bins[bin] += 1
            $0.count += 1
            $0.max = Swift.max($0.max, wait)
        }
    }

    /// Quantiles at their bin's upper edge (within 26 %), and the exact maximum.
    public var summary: Summary {
        state.withLock { state in
            func quantile(_ q: Double) -> Double {
                guard state.count > 0 else { return 0 }
                let rank = Int((Double(state.count) * q).rounded(.up))
                var seen = 0
                for (bin, n) in state.bins.enumerated() {
                    seen += n
                    if seen >= rank { return Swift.min(state.max, Self.smallest * pow(10, Double(bin) / Self.binsPerDecade)) }
                }
                return state.max
            }
            return Summary(count: state.count, p50: quantile(0.5), p99: quantile(0.99), max: state.max)
        }
    }

    /// Starts counting again (a benchmark's phases).
    public func reset() {
        state.withLock { $0 = (Array(repeating: 0, count: Self.binCount), 0, 0) }
    }
}

/// When work reached the loop, as well as the loop can tell (docs/operations.md, "Loop
/// lag"): a message found by a poll that waited arrived when the poll returned; one found
/// by a poll that returned at once arrived while the loop was busy, at worst just after
/// the poll before returned. Timers are due a period after they last fired.
struct LoopClock {
    /// When the loop last stopped waiting, and when the turn's messages may have arrived.
    private(set) var pollReturned: Double
    private(set) var waitingSince: Double
    private(set) var timerDue: Double
    let timerPeriod: Double

    init(now: Double, timerPeriod: Double) {
        pollReturned = now
        waitingSince = now
        timerDue = now + timerPeriod
        self.timerPeriod = timerPeriod
    }

    /// A poll that started at `started` returned at `returned`.
    mutating func polled(started: Double, returned: Double) {
        // Within a millisecond: what it found was there already.
        waitingSince = returned - started < 0.001 ? pollReturned : returned
        pollReturned = returned
    }

    /// The wait of a message handled at `now`.
    func messageWait(handledAt now: Double) -> Double { Swift.max(0, now - waitingSince) }

    /// The loop's periodic work ran at `now`: how late it was, when it was due.
    mutating func timerFired(at now: Double) -> Double? {
        guard now >= timerDue else { return nil }
        defer { timerDue = now + timerPeriod }
        return now - timerDue
    }
}
