import Foundation
import RenderEngine
import SessionKit

/// One durable change the scheduler asks for. The shell writes a turn's changes in one
/// transaction; if the disk refuses them they are kept and written with the next turn's
/// (docs/operations.md, "Disks").
enum StoreChange {
    case createJob(JobStore.JobRecord, [ShardTask])
    /// Queued shard rows of a job being created, written ahead of its own row
    /// (`JobCreations`): `texts[i]` is shard `from + i`'s task as JSON.
    case addShards(job: String, from: Int, texts: ArraySlice<String>, frames: ArraySlice<Int64>)
    case jobPhase(String, JobPhase, error: FarmError?, finished: Double?)
    case startAttempt(AttemptID, worker: String, at: Double)
    case endAttempt(AttemptID, AttemptOutcome, message: String?, at: Double)
    case finishShard(AttemptID, sha256: String, by: ChunkSource, at: Double)
    case requeue(job: String, shard: Int)
    /// A resumed job's shards that were neither kept nor queued, in one statement (about
    /// 2,000 after a restart were 2,000 changes in one turn of the loop).
    case requeueAll(job: String, shards: [Int])
    case jobPriority(String, Int)
    case jobFarmPriority(String, Int)
    case recordWorker(id: String, host: String, slots: Int, at: Double)
    /// After a restart no worker will report the attempts still open: they are `lost`.
    case closeOpenAttempts(job: String, reason: String, at: Double)
    /// A batch whose jobs are being made, written with its first job; `batchMade` when its
    /// last is made or it failed (`JobStore+BatchCreations`).
    case batchBegun(String, at: Double)
    case batchMade(String)
}

extension JobStore {
    func apply(_ change: StoreChange) throws {
        switch change {
        case .createJob(let record, let tasks): try createJob(record, shards: tasks)
        case .addShards(let job, let first, let texts, let frames): try insertShards(job: job, from: first, texts: texts, frames: frames)
        case .jobPhase(let job, let phase, let error, let finished):
            try setJobState(job, phase, error: error, finished: finished)
        case .startAttempt(let key, let worker, let time):
            try startAttempt(job: key.jobID, shard: key.shard, attempt: key.attempt, worker: worker, at: time)
        case .endAttempt(let key, let outcome, let message, let time):
            try endAttempt(job: key.jobID, shard: key.shard, attempt: key.attempt, outcome: outcome, message: message,
                           at: time, requeue: false)
        case .finishShard(let key, let sha256, let source, let time):
            try finishShard(job: key.jobID, shard: key.shard, attempt: key.attempt, sha256: sha256, by: source, at: time)
        case .requeue(let job, let shard): try requeueShard(job: job, shard: shard)
        case .requeueAll(let job, let shards): try requeueShards(job: job, shards)
        case .jobPriority(let job, let priority): try setPriority(job, priority)
        case .jobFarmPriority(let job, let priority): try setFarmPriority(job, priority)
        case .recordWorker(let id, let host, let slots, let time): try recordWorker(id: id, host: host, slots: slots, at: time)
        case .closeOpenAttempts(let job, let reason, let time): try closeOpenAttempts(job: job, at: time, reason: reason)
        case .batchBegun(let batch, let time): try beginBatch(batch, at: time)
        case .batchMade(let batch): try endBatchCreation(batch)
        }
    }
}
