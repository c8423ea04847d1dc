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

    /// Links in, on the I/O lane, every queued shard of a new job whose recipe's chunk is
    /// in the cache; returns how many were found. The cache's index is in memory and
    /// knows each kept chunk's checksum, so no byte is read or hashed; the shards are held
    /// back from dispatch until the lane says what it linked (`LaneOutcome.linked`).
    func reuseCachedChunks(of id: String) -> Int {
        // Only its keys are held: a copy of the job would make each `reused` below copy its arrays.
        guard let keys = scheduler.jobs[id]?.recipeKeys else { return 0 }
        let links = keys.enumerated().compactMap { shard, key in
            chunkCache.lookup(key).map { ChunkLink(shard: shard, source: $0.url.path, target: chunkPath(job: id, shard: shard).path, sha256: $0.sha256) }
        }
        link(links, into: id, from: "the chunk cache")
        return links.count
    }

    /// Links a chunk just stored in place for its queued twins (docs/rendering.md,
    /// "Twins"), on the lane of each twin's job; a twin whose link fails is rendered.
    func shareWithTwins(_ path: URL, sha256: String, job id: String, shard: Int) {
        let twins = Dictionary(grouping: scheduler.twins(ofShard: shard, job: id), by: \.job)
        for (twinJob, shards) in twins.sorted(by: { $0.key < $1.key }) {
            link(shards.map { ChunkLink(shard: $0.shard, source: path.path, target: chunkPath(job: twinJob, shard: $0.shard).path, sha256: sha256) },
                 into: twinJob, from: "shard \(shard) of job \(id)")
        }
    }

    /// Holds the shards back and links their chunks in on the job's lane thread, after its
    /// earlier writes and before its chunks' removal.
    private func link(_ links: [ChunkLink], into job: String, from source: String) {
        guard !links.isEmpty else { return }
        apply(scheduler.handle(.linking(job, shards: links.map(\.shard)), now: Self.now))
        let assembly = assemblyLane
        ioLane.post(key: job, label: "reuse") {
            var linked: [ChunkLink] = []
            var failed: [(ChunkLink, String)] = []
            for link in links {
                do {
                    try Self.linkChunk(link.source, to: link.target)
                    linked.append(link)
                } catch {
                    failed.append((link, FileErrorText.describe(error)))
                }
            }
            if !linked.isEmpty { assembly.post(.advance(job: job)) }
            return .linked(job: job, from: source, linked: linked, failed: failed)
        }
    }

    /// On the loop: what the lane linked is done; what it could not is rendered.
    func linked(job: String, from source: String, linked: [ChunkLink], failed: [(ChunkLink, String)]) {
        if !linked.isEmpty { apply(scheduler.handle(.reused(job, chunks: linked.map { ($0.shard, $0.sha256) }), now: Self.now)) }
        if !linked.isEmpty { log("job \(job): \(linked.count) shard(s) reused from \(source)", LogIDs(job: job)) }
        guard let first = failed.first else { return }
        apply(scheduler.handle(.linkFailed(job, shards: failed.map(\.0.shard)), now: Self.now))
        log("job \(job): could not reuse \(failed.count) chunk(s) from \(source) (shard \(first.0.shard): \(first.1)); rendering them",
            LogIDs(job: job, shard: first.0.shard), level: .warning)
    }

    /// A kept chunk linked in as a job's: a metadata change, no data read or written.
    /// Chunks are never changed in place, so the names may share the file.
    private static func linkChunk(_ source: String, to target: String) throws {
        try Disk.ensureDirectory(URL(fileURLWithPath: target).deletingLastPathComponent())
        Disk.unlinkIfPresent(target)   // a file left by an attempt that lost
        try Disk.link(source, to: target)
    }
}

/// A chunk to link in as a queued shard's: where it is, where it goes, its checksum.
struct ChunkLink: Sendable {
    var shard: Int
    var source: String
    var target: String
    var sha256: String
}
