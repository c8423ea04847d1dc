import Foundation

/// How a worker's failures stand (docs/operations.md, "Sick workers"): each shard that
/// failed on it is a strike until the same shard fails on another worker too — then the
/// input was at fault and the strike is dropped from both — and it is *confirmed* once the
/// shard succeeds elsewhere. A worker with `Limits.quarantineStrikes` strikes within
/// `quarantineWindowSeconds` gets no shards: quarantined. Unconfirmed strikes count, so a
/// worker that fails fast is stopped at its K-th failure, not after it has taken the
/// whole queue; if later failures elsewhere refute them, it is released on its own.
/// Keyed by worker id, so a reconnect does not clear it; kept in memory only.
struct WorkerHealth: Sendable, Equatable {
    struct Strike: Sendable, Equatable {
        let job: String
        let shard: Int
        let at: Double
        /// The shard has since succeeded on another worker.
        var confirmed = false
    }

    private(set) var strikes: [Strike] = []
    /// When it was quarantined, while it is.
    private(set) var quarantinedAt: Double?

    var isQuarantined: Bool { quarantinedAt != nil }
    var isEmpty: Bool { strikes.isEmpty && quarantinedAt == nil }

    /// A failure of `shard` of `job` on this worker. Each failure counts, the same shard's
    /// again too: on a farm of one worker a shard is retried where it failed.
    mutating func strike(job: String, shard: Int, at now: Double) {
        strikes.append(Strike(job: job, shard: shard, at: now))
    }

    /// The shard failed on another worker too: not this machine's fault.
    mutating func refute(job: String, shard: Int) {
        strikes.removeAll { $0.job == job && $0.shard == shard }
    }

    /// The shard succeeded elsewhere: this machine's fault.
    mutating func confirm(job: String, shard: Int) {
        for index in strikes.indices where strikes[index].job == job && strikes[index].shard == shard {
            strikes[index].confirmed = true
        }
    }

    /// The job ended: its strikes that were not confirmed never will be.
    mutating func forgetUnconfirmed(job: String) {
        strikes.removeAll { $0.job == job && !$0.confirmed }
    }

    /// What changed at `now` under these limits: quarantined, released, or nothing.
    enum Change: Equatable {
        case quarantined, released(why: String)
    }

    /// `othersWork`: another connected worker takes shards. The last one is never
    /// quarantined: on a farm of one worker a failure cannot be told from a bad input, and
    /// a job that fails there must fail, not wait (it is quarantined once another joins).
    mutating func review(now: Double, strikesAllowed: Int, window: Double, quarantine: Double, othersWork: Bool) -> Change? {
        if let since = quarantinedAt {
            if now - since >= quarantine {
                release()
                return .released(why: "its \(Int(quarantine)) s of quarantine are over")
            }
            if strikes.count < strikesAllowed {
                quarantinedAt = nil
                return .released(why: "shards that failed on it failed on other workers too: the input, not the machine")
            }
            return nil
        }
        strikes.removeAll { now - $0.at > window }
        guard strikes.count >= strikesAllowed, othersWork else { return nil }
        quarantinedAt = now
        return .quarantined
    }

    /// Back to work with a clean slate (the quarantine's end, or an operator's release).
    mutating func release() {
        strikes = []
        quarantinedAt = nil
    }

    /// One line for logs and statuses.
    var summary: String {
        let confirmed = strikes.filter(\.confirmed).count
        return "\(strikes.count) shard(s) failed on it: \(confirmed) since done elsewhere, \(strikes.count - confirmed) awaiting a retry"
    }
}
