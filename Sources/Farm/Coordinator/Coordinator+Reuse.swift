import Foundation
import RenderEngine
import SessionKit

extension Coordinator {
    /// Each task's recipe key (docs/rendering.md, "Reusing chunks").
    static func recipeKeys(_ spec: JobSpec) throws -> [String] {
        try spec.tasks.indices.map { try spec.shard($0).recipeKey() }
    }

    /// Puts every queued shard of a new job whose recipe's chunk is in the cache in place,
    /// done without rendering; returns how many.
    func reuseCachedChunks(of id: String) -> Int {
        guard let job = scheduler.jobs[id] else { return 0 }
        var reused = 0
        for (shard, key) in job.recipeKeys.enumerated() {
            guard let cached = chunkCache.lookup(key) else { continue }
            do {
                let bytes = try Data(contentsOf: cached)
                try writeChunk(bytes, to: chunkPath(job: id, shard: shard), job: id)
                apply(scheduler.handle(.reused(id, shard: shard, sha256: Digest.sha256(bytes)), now: Self.now))
                reused += 1
            } catch {
                log("job \(id): could not reuse the chunk of shard \(shard) (\(cached.path)): \(FileErrorText.describe(error)); rendering it",
                    LogIDs(job: id, shard: shard), level: .warning)
            }
        }
        return reused
    }

    /// Puts a chunk just stored in place for its queued twins (docs/rendering.md, "Twins"),
    /// done without rendering; a twin whose copy fails is rendered instead.
    func shareWithTwins(_ bytes: Data, sha256: String, job id: String, shard: Int) {
        for twin in scheduler.twins(ofShard: shard, job: id) {
            do {
                try writeChunk(bytes, to: chunkPath(job: twin.job, shard: twin.shard), job: twin.job)
                apply(scheduler.handle(.reused(twin.job, shard: twin.shard, sha256: sha256), now: Self.now))
                log("shard \(twin.shard) of job \(twin.job) reused the chunk of shard \(shard) of job \(id)", LogIDs(job: twin.job, shard: twin.shard))
            } catch {
                log("job \(twin.job): could not reuse the chunk of shard \(shard) of job \(id): \(FileErrorText.describe(error)); rendering it",
                    LogIDs(job: twin.job, shard: twin.shard), level: .warning)
            }
        }
    }

    /// Keeps a stored chunk in the cache under its recipe's key.
    func cacheChunk(_ path: URL, job id: String, shard: Int) {
        guard let keys = scheduler.jobs[id]?.recipeKeys, keys.indices.contains(shard) else { return }
        do {
            try chunkCache.keep(path, key: keys[shard])
        } catch {
            logLimited("chunk cache", "could not keep the chunk of shard \(shard) of job \(id) in the chunk cache: \(FileErrorText.describe(error))")
        }
    }
}
