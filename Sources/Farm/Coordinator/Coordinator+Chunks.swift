import Foundation
import RenderEngine
import SessionKit

/// What became of a chunk a worker delivered, on the I/O lane.
enum ChunkArrival: Sendable, Equatable {
    case stored
    /// The bytes are not the chunk the worker described.
    case rejected(ChunkRejection)
    /// The disk refused it: why, for the job's error.
    case notStored(String)
}

/// How a delivered chunk differs from what its worker described: it is not trusted, and
/// the attempt fails (`renderFailed`).
enum ChunkRejection: Sendable, Equatable, CustomStringConvertible {
    /// The LZ4 frame does not decode (its checksum, a truncation, past the size limit).
    case undecodable(detail: String)
    /// It decodes to another number of bytes than the worker said.
    case wrongSize(expected: Int, got: Int)
    /// Its SHA-256 is not the one the worker said.
    case wrongDigest

    var description: String {
        switch self {
        case .undecodable(let detail): "the chunk does not decompress: \(detail)"
        case .wrongSize(let expected, let got): "the chunk is \(got) bytes, not the \(expected) its worker said"
        case .wrongDigest: "the chunk does not match its SHA-256"
        }
    }
}

extension Coordinator {
    /// Verifies and writes a delivered chunk on the I/O lane, in its job's order; the
    /// scheduler hears how that went when the loop takes the outcome.
    func storeChunk(_ ready: ChunkReady, payload: Data, from peer: PeerID, _ key: AttemptID) {
        let path = chunkPath(job: key.jobID, shard: key.shard)
        let recipeKey = scheduler.jobs[key.jobID].flatMap { $0.recipeKeys.indices.contains(key.shard) ? $0.recipeKeys[key.shard] : nil }
        let (cache, assembly) = (chunkCache, assemblyLane)
        ioLane.post(key: key.jobID, label: "chunk") {
            let arrival = Self.store(payload, ready: ready, at: path, job: key.jobID, assembly: assembly)
            var failure: String?
            if arrival == .stored, let recipeKey {
                do { try cache.keep(path, key: recipeKey, sha256: ready.sha256) } catch { failure = FileErrorText.describe(error) }
            }
            return .chunk(arrival, ready: ready, from: peer, key: key, cacheFailure: failure)
        }
    }

    /// The LZ4 checksum, then the size and the SHA-256 of the bytes; then the file, under a
    /// temporary name renamed into place (the job's assembly reads it from then on).
    static func store(_ payload: Data, ready: ChunkReady, at path: URL, job: String, assembly: AssemblyLane) -> ChunkArrival {
        let bytes: Data
        do {
            bytes = try LZ4Frame.decompress(payload, limit: 1 << 30)
        } catch {
            return .rejected(.undecodable(detail: "\(error)"))
        }
        guard bytes.count == ready.size else { return .rejected(.wrongSize(expected: ready.size, got: bytes.count)) }
        guard Digest.sha256(bytes) == ready.sha256 else { return .rejected(.wrongDigest) }
        do {
            try writeChunk(bytes, to: path, job: job, assembly: assembly)
        } catch {
            return .notStored("cannot store the \(bytes.count)-byte chunk of shard \(path.deletingPathExtension().lastPathComponent) in "
                + "\(path.deletingLastPathComponent().path): \(FileErrorText.describe(error))")
        }
        return .stored
    }

    /// Writes a chunk of `job` under a temporary name and renames it into place. No fsync:
    /// a restart verifies every kept chunk against the SHA-256 in the store and renders
    /// again whatever a crash lost, so the sync that matters is the store's.
    static func writeChunk(_ bytes: Data, to path: URL, job: String, assembly: AssemblyLane) throws {
        let directory = path.deletingLastPathComponent()
        try Disk.ensureDirectory(directory)
        try TemporaryOutput.write(to: path.path) { try bytes.write(to: URL(fileURLWithPath: $0)) }
        assembly.post(.advance(job: job))
    }

    /// On the loop, the outcome of `storeChunk`.
    func chunkArrived(_ arrival: ChunkArrival, ready: ChunkReady, from peer: PeerID, _ key: AttemptID, cacheFailure: String?) {
        switch arrival {
        case .rejected(let rejection):
            CoordinatorMetrics.chunkVerificationFailures.increment()
            apply(scheduler.handle(.chunkRejected(peer, key, rejection), now: Self.now))
        case .notStored(let reason):
            apply(scheduler.handle(.chunkNotStored(peer, key, reason: reason), now: Self.now))
        case .stored:
            if let cacheFailure {
                logLimited("chunk cache", "could not keep the chunk of shard \(key.shard) of job \(key.jobID) in the chunk cache: \(cacheFailure)")
            }
            apply(scheduler.handle(.chunkStored(peer, key, sha256: ready.sha256, peakRSSKB: ready.peakRSSKB), now: Self.now))
            shareWithTwins(chunkPath(job: key.jobID, shard: key.shard), sha256: ready.sha256, job: key.jobID, shard: key.shard)
            // A job that ended while its chunk was on the lane: what the lane wrote goes too.
            if scheduler.jobs[key.jobID] == nil { discardChunks(of: key.jobID) }
        }
    }

    /// A job that ended needs its chunks no more (a done job's are inside its result):
    /// removed on the I/O lane, after the job's chunk writes, once the assembly lane has
    /// let go of them. A done job's live preview is ended on that lane after the job is
    /// (docs/rendering.md, "Live preview"), from these chunks: removed sooner, the preview
    /// lacked its last segments and was given up.
    func discardChunks(of job: String) {
        let directory = chunkPath(job: job, shard: 0).deletingLastPathComponent()
        let ioLane = self.ioLane
        assemblyLane.post(.drop(job: job) {
            ioLane.post(key: job, label: "discard") { Self.removeChunks(of: job, in: directory) }
        })
    }

    private static func removeChunks(of job: String, in directory: URL) -> LaneOutcome? {
        do {
            try Disk.removeIfPresent(directory.path)
            return nil
        } catch {
            return .chunksNotRemoved(job: job, directory: directory.path, reason: "\(error)")
        }
    }
}
