import Foundation
import RenderEngine
import SessionKit

/// An unfinished job of the last run as the store holds it, read on the loop and made into
/// the scheduler's job on the I/O lane (docs/operations.md, "Restarts"): decoding its
/// plan, its recipes' keys and reading back every kept chunk take longer than the loop
/// may wait (a 7,200-shard job: about 0.25 s, and its chunks' bytes).
struct ResumedJob: Sendable {
    struct Record: Sendable {
        var id: String
        var priority: Int
        var farmPriority: Int
        var created: Double
        var owner: String?
        var paths: [String: String]
    }

    struct Failure: Sendable {
        var worker: String
        var message: String
    }

    /// The job, how many of its chunks were kept, and the shards to queue again.
    struct Built: Sendable {
        var job: ScheduledJob
        var kept: Int
        var requeue: [Int]
    }

    /// A stored spec this release cannot read (none, or another version): the loop compiles
    /// the job again from its session, and the lane builds it with that.
    struct OlderRelease: Error {}

    var record: Record
    /// Whether chunks are reused across owners (`--share-chunks`).
    var sharesChunks: Bool
    var pathStats: [String: FileStat]
    /// The stored spec (JSON), or the spec compiled again from an older release's session.
    var storedSpec: String?
    var spec: JobSpec?
    var shards: [JobStore.StoredShard]
    var attempts: [Int: Int]
    var failures: [Int: [Failure]]

    /// Blocks: decodes, hashes the recipes, reads every kept chunk. A kept chunk whose
    /// file no longer hashes to its checksum is rendered again, and its file (like every
    /// other chunk file that is not kept) is removed, so a stale file is never read.
    func build(chunkPaths: [String]) throws -> Built {
        guard let spec = try self.spec ?? storedSpec.flatMap({ try? JobSpec.decode(Data($0.utf8)) }) else { throw OlderRelease() }
        let tasks = try shards.map { try JSONDecoder().decode(ShardTask.self, from: Data($0.task.utf8)) }
        guard spec.tasks == tasks else { throw FarmError(.internal, "job \(record.id): its stored shards are not its compiled plan") }
        var job = ScheduledJob(id: record.id, priority: record.priority, farmPriority: record.farmPriority, created: record.created, owner: record.owner,
                               spec: spec, paths: record.paths, pathStats: pathStats,
                               recipeKeys: try Coordinator.reuseKeys(spec, owner: record.owner, shared: sharesChunks),
                               phase: .rendering)
        for (shard, attempts) in attempts { job.nextAttempt[shard] = attempts }
        for (shard, failures) in failures {
            job.failures[shard] = failures.map(\.message)
            job.failedOn[shard] = Set(failures.map(\.worker))
        }
        var kept = 0
        var requeue: [Int] = []
        for shard in shards {
            let path = chunkPaths[shard.index]
            if shard.state == .done, let sha256 = shard.sha256, let bytes = Disk.contents(path),
               Digest.sha256(bytes) == sha256 {
                job.set(shard.index, .done, by: shard.worker.map(ChunkSource.init(stored:)))
                kept += 1
            } else {
                Disk.unlinkIfPresent(path)
                if shard.state != .queued { requeue.append(shard.index) }
            }
        }
        return Built(job: job, kept: kept, requeue: requeue)
    }
}
