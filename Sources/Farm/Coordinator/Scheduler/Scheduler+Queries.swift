import Foundation
import SessionKit

/// What the scheduler can say without changing: twins of a shard, who reads a medium,
/// which running shard to back up.
extension Scheduler {
    /// The "worker" of a shard whose chunk came from the chunk cache.

    /// The pause as statuses show it: its causes, and one line (`nil` while dispatching).
    var paused: DispatchPause? {
        guard !pauses.isEmpty else { return nil }
        let held = pauses.sorted { $0.key < $1.key }
        return DispatchPause(causes: held.map(\.key), message: held.map(\.value).joined(separator: "; "))
    }

    /// The job whose attempt held by `peer` reads the media `contentID`, if any: only such
    /// a worker is sent its blocks.
    func job(reading contentID: String, peer: PeerID) -> String? {
        workers[peer]?.running.first { key in
            jobs[key.jobID]?.spec.task(key.shard, reads: contentID) ?? false
        }?.jobID
    }

    /// Queued shards, in any job, with the recipe of `shard` of job `id`: they take its
    /// chunk instead of rendering it again (docs/rendering.md, "Twins").
    func twins(ofShard shard: Int, job id: String) -> [(job: String, shard: Int)] {
        guard let key = jobs[id]?.recipeKey(shard) else { return [] }
        return jobs.values.filter(\.isDispatchable).sorted { $0.id < $1.id }.flatMap { job in
            job.queuedShards(withKey: key).filter { job.id != id || $0 != shard }.map { (job.id, $0) }
        }
    }

    /// With nothing queued for `peer`: a shard to copy, if one runs well past its job's
    /// usual time. Decides only; `assign` makes the copy.
    func backupShard(for worker: WorkerState, among candidates: some Sequence<String>) -> (String, Int)? {
        let peer = worker.identity
        // Nothing queued: back up the slowest running shard near the end of a job — one
        // running well past what this job's shards take (docs/operations.md, "Scaling") —
        // with at most a tenth of its shards copied at once: on a big farm every shard
        // starts together and none has finished by the first threshold, and copying them
        // all doubled the media the coordinator sends (docs/scale.md, "Backup copies").
        for id in candidates {
            guard let job = jobs[id], !job.hasQueued, job.accepts(worker) else { continue }
            let copies = job.running.values.filter { $0.count > 1 }.count
            guard copies < max(1, job.tasks.count / 10) else { continue }
            let threshold = job.shardTimes.backupThreshold(minimum: limits.backupAfterSeconds)
            let slow = job.running.filter { _, attempts in
                attempts.count == 1 && attempts.values.allSatisfy {
                    $0.worker != peer && now - $0.started > threshold
                }
            }.min { ($0.value.values.first?.started ?? 0, $0.key) < ($1.value.values.first?.started ?? 0, $1.key) }
            if let shard = slow?.key { return (job.id, shard) }
        }
        return nil
    }
}
