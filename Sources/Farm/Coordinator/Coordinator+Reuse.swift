import Foundation
import RenderEngine
import SessionKit

extension Coordinator {
    /// Each task's reuse key: its recipe key (docs/rendering.md, "Reusing chunks"), within
    /// its owner's own chunks unless the farm shares them (`--share-chunks`). Another
    /// tenant's chunk is then never reused: its quick end would tell that the same
    /// recipe — the same media and the same edit — was rendered for someone else.
    static func reuseKeys(_ spec: JobSpec, owner: String?, shared: Bool) throws -> [String] {
        try spec.tasks.indices.map { try reuseKey(recipe: spec.shard($0).recipeKey(), owner: owner, shared: shared) }
    }

    static func reuseKey(recipe: String, owner: String?, shared: Bool) -> String {
        guard !shared, let owner else { return recipe }
        return Digest.sha256(Data("\(owner)\n\(recipe)".utf8))
    }

    /// Puts every queued shard of a new job whose recipe's chunk is in the cache in place,
    /// done without rendering; returns how many. The cache's index knows each kept chunk's
    /// checksum, so this only links files (no byte is read or hashed on the loop).
    func reuseCachedChunks(of id: String) -> Int {
        // Only its keys are held: a copy of the job would make each `reused` below copy its arrays.
        guard let keys = scheduler.jobs[id]?.recipeKeys else { return 0 }
        var reused = 0
        for (shard, key) in keys.enumerated() {
            guard let cached = chunkCache.lookup(key) else { continue }
            do {
                try linkChunk(cached.url, to: chunkPath(job: id, shard: shard))
                assemblyLane.post(.advance(job: id))
                apply(scheduler.handle(.reused(id, shard: shard, sha256: cached.sha256), now: Self.now))
                reused += 1
            } catch {
                log("job \(id): could not reuse the chunk of shard \(shard) (\(cached.url.path)): \(FileErrorText.describe(error)); rendering it",
                    LogIDs(job: id, shard: shard), level: .warning)
            }
        }
        return reused
    }

    /// Puts a chunk just stored in place for its queued twins (docs/rendering.md, "Twins"),
    /// done without rendering; a twin whose link fails is rendered instead.
    func shareWithTwins(_ path: URL, sha256: String, job id: String, shard: Int) {
        for twin in scheduler.twins(ofShard: shard, job: id) {
            do {
                try linkChunk(path, to: chunkPath(job: twin.job, shard: twin.shard))
                assemblyLane.post(.advance(job: twin.job))
                apply(scheduler.handle(.reused(twin.job, shard: twin.shard, sha256: sha256), now: Self.now))
                log("shard \(twin.shard) of job \(twin.job) reused the chunk of shard \(shard) of job \(id)", LogIDs(job: twin.job, shard: twin.shard))
            } catch {
                log("job \(twin.job): could not reuse the chunk of shard \(shard) of job \(id): \(FileErrorText.describe(error)); rendering it",
                    LogIDs(job: twin.job, shard: twin.shard), level: .warning)
            }
        }
    }

    /// A kept chunk linked in as a job's: a metadata change, no data read or written.
    /// Chunks are never changed in place, so the names may share the file.
    private func linkChunk(_ source: URL, to target: URL) throws {
        let directory = target.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.path) {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        unlink(target.path)   // a file left by an attempt that lost
        guard link(source.path, target.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
    }
}
