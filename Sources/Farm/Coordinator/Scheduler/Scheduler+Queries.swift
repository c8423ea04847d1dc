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
    func job(reading contentID: String, peer: PeerID) -> String? { attempt(reading: contentID, peer: peer)?.jobID }

    /// The attempt held by `peer` that reads the media `contentID`, if any.
    func attempt(reading contentID: String, peer: PeerID) -> AttemptID? {
        workers[peer]?.running.first { key in
            jobs[key.jobID]?.spec.task(key.shard, reads: contentID) ?? false
        }
    }

    /// Whether `worker` takes shards now, as statuses and metrics show it.
    func availability(of worker: WorkerState) -> WorkerAvailability {
        isQuarantined(worker.workerID) ? .quarantined : worker.slots == 0 ? .draining : .ready
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
        guard let minimum = limits.backupAfterSeconds else { return nil }
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
            // A copy only where it would finish first (LATE: the longest approximate time to
            // end): a straggler whose worker reports a pace that ends it sooner than a fresh
            // attempt of it takes is left alone, and its media are not sent twice
            // (docs/operations.md, "Scaling"). One whose worker has not said (audio, an older
            // worker, nothing encoded yet: a stuck one) is copied past the threshold as before.
            let slow = job.running.compactMap { shard, attempts -> (shard: Int, left: Double, started: Double)? in
                guard attempts.count == 1, let attempt = attempts.values.first, attempt.worker != peer,
                      job.tasks.indices.contains(shard) else { return nil }
                let task = job.tasks[shard]
                let threshold = job.shardTimes.backupThreshold(for: task, minimum: minimum)
                guard now - attempt.started > threshold else { return nil }
                let left = attempt.secondsLeft(of: task.frameCount, now: now)
                // A fresh attempt takes what finished ones of its kind took; before any has,
                // what this one's own pace makes its whole run, which it always beats.
                if let left, left <= job.shardTimes.expected(task) ?? (now - attempt.started + left) { return nil }
                // An idle worker whose cache holds more of what the straggler read takes the
                // copy: it fetches that much less again.
                if !attempt.read.isEmpty, hasIdleHolder(of: attempt, for: job, besides: worker) { return nil }
                return (shard, left ?? .infinity, attempt.started)
            }.min { (-$0.left, $0.started, $0.shard) < (-$1.left, $1.started, $1.shard) }   // the most left, then the oldest
            if let shard = slow?.shard { return (job.id, shard) }
        }
        return nil
    }

    /// Whether a worker other than `worker` (and the straggler's) is free, may take the job,
    /// and holds more of the media the straggler read than `worker` does.
    private func hasIdleHolder(of attempt: RunningAttempt, for job: ScheduledJob, besides worker: WorkerState) -> Bool {
        let own = worker.holds(attempt.read)
        return workers.values.contains { other in
            other.identity != worker.identity && other.identity != attempt.worker && other.free > 0
                && !isQuarantined(other.workerID) && job.accepts(other) && other.holds(attempt.read) > own
        }
    }
}
