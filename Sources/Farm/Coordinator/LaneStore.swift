import Foundation
import RenderEngine
import SessionKit
import Synchronization

/// The I/O lane's own connection to the job store, for reads that would hold the loop for
/// milliseconds (docs/architecture.md, "The I/O lane"). Writes stay on the loop, in its
/// turn's transaction.
final class LaneStore: Sendable {
    private let store: Mutex<JobStore>

    init(at location: StoreLocation) throws {
        store = Mutex(try JobStore(at: location))
    }

    /// Which of `ids` (the results on disk, 10,000 of them at times) ended before `cutoff`.
    func ended(before cutoff: Double, among ids: [String]) throws -> [(id: String, finished: Double)] {
        try store.withLock { try $0.ended(before: cutoff, among: ids) }
    }

    /// Ended jobs past `--keep-jobs`, whose rows the loop prunes a slice a turn.
    func prunable(endedBefore cutoff: Double) throws -> [String] {
        try store.withLock { try $0.prunable(endedBefore: cutoff) }
    }

    /// The connected workers' statuses, with the shards each has done as stored.
    func workerStatuses(_ workers: [WorkerStatus]) throws -> [WorkerStatus] {
        let done = try store.withLock { try $0.shardsDone(byWorkers: workers.map(\.workerID)) }
        return workers.map { var worker = $0; worker.shardsDone = done[worker.workerID] ?? 0; return worker }
    }

    /// Pages of the job list and a batch's jobs as stored, each with its shard counts and
    /// webhook: a query or three per job, up to 10,000 jobs, read here instead of on the
    /// loop, which adds what only it knows (docs/architecture.md, "What runs where").
    /// `live`: jobs the loop describes from memory, whose shards are not counted here.
    func page(owner: String?, after cursor: JobStore.JobCursor?, limit: Int, live: some Collection<String>) throws -> [StoredJob] {
        let live = Set(live)
        return try store.withLock { store in
            try store.jobSummaries(owner: owner, after: cursor, limit: limit).map { try StoredJob($0, in: store, live: live.contains($0.id)) }
        }
    }

    /// One job as stored, its shards counted by the store (a standby's status).
    func job(_ id: String) throws -> StoredJob? {
        try store.withLock { store in try store.jobSummary(id).map { try StoredJob($0, in: store, live: false) } }
    }

    func batch(_ id: String, live: some Collection<String>) throws -> [StoredJob] {
        let live = Set(live)
        return try store.withLock { store in try store.batchSummaries(id).map { try StoredJob($0, in: store, live: live.contains($0.id)) } }
    }

    /// Every shard of a job with its last attempt: each shard's task decoded, 7,200 of them
    /// for a long job — read here, not on the loop.
    func shardDetails(of job: String, now: Double) throws -> [ShardInfo] {
        try store.withLock { try $0.shardDetails(of: job, now: now) }
    }

    /// A job stored by an older release, compiled again from its session: hashing and
    /// probing its files as a submission does.
    struct Recompiled: Sendable {
        var spec: JobSpec
        var verified: [(contentID: String, path: String, stat: FileStat)]
    }

    func recompile(_ id: String, context: SubmissionCompiler.Context) throws -> Recompiled {
        try store.withLock { store in
            guard let record = try store.job(id) else { throw FarmError(.internal, "its record is gone") }
            let session = try SessionDocument.decode(Data(record.session.utf8))
            var verified: [(contentID: String, path: String, stat: FileStat)] = []
            let loaded = SubmissionCompiler.load(session: session, files: record.files, paths: record.paths, context: context, known: { path, stat in
                try? store.knownMedia(path: path, size: stat.size, mtime: stat.mtime)
            }, verified: { verified.append(($0, $1, $2)) }).0
            return Recompiled(spec: try JobSpec.compile(loaded, settings: record.settings, contentIDs: record.files), verified: verified)
        }
    }

    /// The pinned URL sources of a stored job, from its plan (a finished job's pictures; a
    /// running one's plan is in memory).
    /// A job's sources by URL and its pool: what a picture of it needs from its spec.
    func stillContext(ofJob id: String) throws -> (origins: [String: OriginObject], pool: String?) {
        guard let text = try store.withLock({ try $0.spec(of: id) }) else { return ([:], nil) }
        let spec = try JobSpec.decode(Data(text.utf8))
        return (spec.files.compactMapValues(\.origin), spec.pool)
    }
}

/// A job as the store holds it, for a status: its summary, its shards counted by the store
/// (nil for a job the scheduler holds: described from memory), its webhook.
struct StoredJob: Sendable {

    var summary: JobStore.JobSummary
    var counts: JobStore.ShardTally?
    var webhook: WebhookStatus?

    init(_ summary: JobStore.JobSummary, in store: JobStore, live: Bool) throws {
        self.summary = summary
        counts = live ? nil : try store.shardCounts(of: summary.id)
        webhook = summary.state.isFinal ? try store.webhook(of: summary.id) : nil
    }
}
