import Foundation
import SessionKit

/// Sick workers (docs/operations.md, "Sick workers"): failures are blamed on the worker
/// until the shard fails elsewhere too, and a worker with `quarantineStrikes` of them gets
/// no shards until its quarantine ends or an operator lifts it.
extension Scheduler {
    /// `key` failed on `workerID`, after failing on `failedBefore`. Failing on another
    /// worker too clears every worker's strike for that shard: the input is at fault.
    mutating func blame(_ workerID: String, for key: AttemptID, failedBefore: Set<String>) {
        if failedBefore.contains(where: { $0 != workerID }) {
            for other in failedBefore.union([workerID]) {
                health[other]?.refute(job: key.jobID, shard: key.shard)
                review(other)
            }
            return
        }
        health[workerID, default: WorkerHealth()].strike(job: key.jobID, shard: key.shard, at: now)
        review(workerID)
    }

    /// Quarantines or releases `workerID` as its strikes now stand.
    mutating func review(_ workerID: String) {
        guard var state = health[workerID] else { return }
        let othersWork = workers.values.contains { $0.workerID != workerID && $0.slots > 0 && !isQuarantined($0.workerID) }
        let change = state.review(now: now, strikesAllowed: limits.quarantineStrikes, window: limits.quarantineWindowSeconds,
                                  quarantine: limits.quarantineSeconds, othersWork: othersWork)
        health[workerID] = state.isEmpty ? nil : state
        switch change {
        case .quarantined:
            emit(.log(.warning, "worker \(workerID) is quarantined for \(Int(limits.quarantineSeconds)) s: \(state.summary); "
                + "lift it with `reel workers --release \(workerID)`", LogIDs(worker: workerID)))
            withdrawing.insert(workerID)   // after the event: the job at hand is out of the table
        case .released(let why):
            emit(.log(.info, "worker \(workerID) is out of quarantine: \(why)", LogIDs(worker: workerID)))
        case nil:
            break
        }
    }

    /// Every worker's strikes at the tick: old ones expire, quarantines end.
    mutating func reviewHealth() {
        for workerID in health.keys.sorted() { review(workerID) }
    }

    /// An operator's release: the worker takes shards again with no strikes.
    mutating func release(_ workerID: String) {
        guard health[workerID]?.isQuarantined ?? false else { return }
        health[workerID] = nil
        emit(.log(.info, "worker \(workerID) is out of quarantine: released by an operator", LogIDs(worker: workerID)))
    }

    func isQuarantined(_ workerID: String) -> Bool { health[workerID]?.isQuarantined ?? false }
}
