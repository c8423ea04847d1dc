import Foundation

/// The scheduling policy of the coordinator's loop thread (docs/operations.md, "Loop lag").
/// On a coordinator whose cores are busy with its own threads (the I/O lane hashing and
/// writing chunks and uploads, the assembly writing files, ZeroMQ's I/O thread copying
/// frames), a loop woken by a message waits for a core: 5–16 ms at the 99th percentile in
/// bench/coordinator-load on 2 cores, against 2.0–2.5 ms for a loop of the real-time
/// policy, which takes a core as soon as it wakes (docs/benchmarks.md, "Loop lag").
public enum LoopPriority: String, Sendable, CaseIterable {
    /// The normal policy, shared fairly with every other thread.
    case normal
    /// `SCHED_RR` at the lowest real-time priority (1). Needs `CAP_SYS_NICE` (root, or the
    /// container's `SYS_NICE` capability). The loop blocks in its poll between turns, and
    /// Linux keeps 5 % of each second for the normal threads (`sched_rt_runtime_us`).
    case realtime

    /// Applies this policy to the calling thread: nil on success, else why not.
    func apply() -> String? {
        guard self == .realtime else { return nil }
        var parameters = sched_param(sched_priority: 1)
        let code = pthread_setschedparam(pthread_self(), Int32(SCHED_RR), &parameters)
        return code == 0 ? nil : String(cString: strerror(code))
    }
}
