import Foundation
import RenderEngine
import SessionKit

/// Reads of jobs for clients and housekeeping: summaries and pages, counts, which ended.
extension JobStore {
    /// What a status shows of a job, without its session or settings.
    public struct JobSummary: Sendable {
        public var id: String
        public var state: JobPhase
        public var priority: Int
        public var created: Double
        public var finished: Double?
        public var totalFrames: Int64
        public var error: String?
        public var owner: String?
        /// Where the result was sent (`PublishedOutput` as JSON), when it was.
        public var published: String? = nil
        public var batch: String? = nil
        public var variant: String? = nil
        /// Why a failed job failed, as a code (its `error` is the message).
        public var errorCode: FarmErrorCode? = nil
    }

    /// Where a page of the job list starts: after this job, in newest-first order.
    public struct JobCursor: Sendable, Equatable {
        public var created: Double
        public var id: String

        public init(created: Double, id: String) {
            self.created = created
            self.id = id
        }

        /// `CREATED/ID`, opaque to clients.
        public init?(_ text: String) {
            guard let slash = text.firstIndex(of: "/"), let created = Double(text[..<slash]), created.isFinite else { return nil }
            self.init(created: created, id: String(text[text.index(after: slash)...]))
        }

        public var text: String { "\(created)/\(id)" }
    }

    private static let summaryColumns = "id, state, priority, created, finished, total_frames, error, owner, published, batch, variant, error_code"

    /// Up to `limit` jobs, newest first, after `cursor`, of `owner` only if given: one
    /// indexed range read, however many jobs the store holds.
    public func jobSummaries(owner: String?, after cursor: JobCursor?, limit: Int) throws -> [JobSummary] {
        var conditions: [String] = []
        var values: [SQLValue] = []
        if let owner {
            conditions.append("owner=?")
            values.append(.text(owner))
        }
        if let cursor {
            conditions.append("(created < ? OR (created = ? AND id < ?))")
            values += [.real(cursor.created), .real(cursor.created), .text(cursor.id)]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try summaries(try db.query("SELECT \(Self.summaryColumns) FROM jobs \(filter) ORDER BY created DESC, id DESC LIMIT ?",
                                          values + [.integer(Int64(max(0, limit)))]))
    }

    /// The jobs of a batch, in the order they were inserted (its variants' order).
    public func batchSummaries(_ batch: String) throws -> [JobSummary] {
        try summaries(try db.query("SELECT \(Self.summaryColumns) FROM jobs WHERE batch=? ORDER BY \(db.dialect.insertionOrder)", [.text(batch)]))
    }

    /// The owner of a batch's jobs, and whether it has any (`nil`: no such batch).
    public func batchOwner(_ batch: String) throws -> String?? {
        guard let row = try db.query("SELECT owner FROM jobs WHERE batch=? LIMIT 1", [.text(batch)]).first else { return nil }
        return .some(row[0].string)
    }

    /// Records where a job's result was sent.
    public func setPublished(_ id: String, _ json: String) throws {
        try db.query("UPDATE jobs SET published=? WHERE id=?", [.text(json), .text(id)])
    }

    public func jobSummary(_ id: String) throws -> JobSummary? {
        try summaries(try db.query("SELECT \(Self.summaryColumns) FROM jobs WHERE id=?", [.text(id)])).first
    }

    func summaries(_ rows: [[SQLValue]]) throws -> [JobSummary] {
        try rows.compactMap { r in
            guard let id = r[0].string else { return nil }
            return JobSummary(id: id, state: try Self.parse(JobPhase.self, column: r[1].string, of: id), priority: Int(r[2].int ?? 0),
                              created: r[3].double ?? 0, finished: r[4].double, totalFrames: r[5].int ?? 0, error: r[6].string,
                              owner: r[7].string, published: r[8].string, batch: r[9].string, variant: r[10].string,
                              errorCode: r[11].string.map { FarmErrorCode(rawValue: $0) ?? .internal })
        }
    }

    /// An ended job's shards counted by state, its frames done and shards per worker.
    public struct ShardTally: Sendable {
        public var byState = ShardCounts()
        /// The video shards among them (an audio piece is a shard of no frames).
        public var video = ShardCounts()
        public var framesDone: Int64 = 0
        public var doneBy: [ChunkSource: Int] = [:]
    }

    /// An ended job's `ShardTally`, summed by the database: no shard's task is decoded.
    public func shardCounts(of job: String) throws -> ShardTally {
        var tally = ShardTally()
        for r in try db.query("SELECT state, COUNT(*), SUM(frames), SUM(CASE WHEN frames > 0 THEN 1 ELSE 0 END) FROM shards WHERE job_id=? GROUP BY state",
                              [.text(job)]) {
            let state = try Self.parse(ShardState.self, column: r[0].string, of: job)
            tally.byState[state] = Int(r[1].int ?? 0)
            tally.video[state] = Int(r[3].int ?? 0)
            if state == .done { tally.framesDone = r[2].int ?? 0 }
        }
        for r in try db.query("SELECT worker, COUNT(*) FROM shards WHERE job_id=? AND state=? AND worker IS NOT NULL GROUP BY worker",
                              [.text(job), .text(ShardState.done.rawValue)]) {
            if let worker = r[0].string { tally.doneBy[ChunkSource(stored: worker)] = Int(r[1].int ?? 0) }
        }
        return tally
    }

    /// Of `ids`, the jobs that ended before `cutoff`, with their end times: a few
    /// statements of up to 500 ids each, not one per id.
    public func ended(before cutoff: Double, among ids: some Collection<String>) throws -> [(id: String, finished: Double)] {
        var found: [(id: String, finished: Double)] = []
        for part in SQLStore.slices(Array(ids), of: 500) {
            let rows = try db.query("SELECT id, finished FROM jobs WHERE finished IS NOT NULL AND finished < ? AND id IN (\(SQLStore.marks(part.count)))",
                                    [.real(cutoff)] + part.map { .text($0) })
            found += rows.compactMap { row in row[0].string.flatMap { id in row[1].double.map { (id, $0) } } }
        }
        return found
    }
}
