import Foundation
import RenderEngine
import SessionKit

/// The coordinator's durable state (docs/operations.md): jobs, shards, attempts and workers in
/// SQLite. Every state change is one transaction, so a restart finds each job exactly as
/// the last committed change left it.
public final class JobStore {
    let db: any SQLDatabase

    /// `syncedBy`: the coordinator's loop commits without waiting for the disk, and a
    /// `StoreSyncer` makes its commits durable (docs/operations.md, "Disks"); every other
    /// connection syncs each commit itself. On PostgreSQL the server does both (`loop`:
    /// the loop's connection commits asynchronously, as SQLite's does with a syncer).
    public convenience init(at location: StoreLocation, syncedBy syncer: StoreSyncer? = nil, loop: Bool = false) throws {
        let db = try location.connect(commitTimer: CoordinatorMetrics.storeCommit)
        switch location {
        case .sqlite:
            if syncer != nil {
                try db.execute("PRAGMA synchronous=NORMAL")
                try db.execute("PRAGMA wal_autocheckpoint=0")
            }
        case .postgres:
            // Commits wait for the server's write, not its disk: the server syncs its log
            // within 3 × wal_writer_delay (0.6 s), as the syncer does SQLite's within 0.1 s.
            // Other connections (a standby's) see a commit at once either way.
            if loop { try db.execute("SET synchronous_commit = off") }
        }
        try self.init(database: db)
    }

    /// A store on a connection already open; what is missing of its tables is made.
    init(database: any SQLDatabase) throws {
        db = database
        try StoreSchema.make(on: db)
    }

    /// A store in SQLite at `path`.
    public convenience init(path: String, syncedBy syncer: StoreSyncer? = nil) throws {
        try self.init(at: .sqlite(path: path), syncedBy: syncer)
    }

    public struct JobRecord {
        public var id: String
        public var state: JobPhase
        public var priority: Int
        public var created: Double
        public var finished: Double?
        public var session: String
        public var files: [String: String]
        public var paths: [String: String]
        public var settings: EncoderSettings
        public var totalFrames: Int64
        public var error: String?
        /// The CURVE key of the client that submitted it (`nil` without CURVE).
        public var owner: String? = nil
        /// The compiled `JobSpec` (JSON), the source of truth of the job's work; written
        /// with the job, read by `spec(of:)` only (listings do not carry it).
        public var spec: String? = nil
        /// The URL told of the job's end (docs/api.md, "Webhooks"); written with the job only.
        public var callback: String? = nil
        /// The batch it is a variant of, and the variant's name; written with the job only.
        public var batch: String? = nil
        public var variant: String? = nil
        /// Its shards' tasks as their column's JSON (`json`), when encoded ahead: a job of
        /// 7,204 shards took 70 ms of the loop to encode them (docs/operations.md, "Loop lag").
        /// Written with the job only.
        var shardTexts: [String]? = nil
        /// Its shard rows are written after it, a slice a turn (`insertShards`): the
        /// job's own row is written alone.
        var shardsWritten = false
        /// The coordinator whose disk holds its result, on a shared store (read only).
        public var resultHolder: String? = nil
        /// An admin's farm-wide priority (docs/operations.md, "Tenants"); set after the job is written.
        public var farmPriority = 0

        public init(id: String, state: JobPhase, priority: Int, created: Double, finished: Double?, session: String,
                    files: [String: String], paths: [String: String], settings: EncoderSettings, totalFrames: Int64,
                    error: String? = nil, owner: String? = nil, spec: String? = nil, callback: String? = nil,
                    batch: String? = nil, variant: String? = nil) {
            self.id = id
            self.state = state
            self.priority = priority
            self.created = created
            self.finished = finished
            self.session = session
            self.files = files
            self.paths = paths
            self.settings = settings
            self.totalFrames = totalFrames
            self.error = error
            self.owner = owner
            self.spec = spec
            self.callback = callback
            self.batch = batch
            self.variant = variant
        }
    }

    public struct ShardRecord {
        public var index: Int
        public var task: ShardTask
        public var state: ShardState
        public var sha256: String?
        public var worker: String?
    }

    /// A shard as stored, its task still JSON: a restart reads them on the loop and
    /// decodes them on the I/O lane.
    public struct StoredShard: Sendable {
        public var index: Int
        public var task: String
        public var state: ShardState
        public var sha256: String?
        public var worker: String?

        public func decoded() throws -> ShardRecord {
            ShardRecord(index: index, task: try JobStore.parse(ShardTask.self, task), state: state, sha256: sha256, worker: worker)
        }
    }

    /// A column's JSON: also made ahead, off the coordinator's loop (`JobRecord.shardTexts`).
    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    /// A state column: a store holding a state this build does not know is refused, not guessed.
    static func parse<State: RawRepresentable<String>>(_ type: State.Type, column: String?, of job: String) throws -> State {
        guard let text = column, let state = State(rawValue: text) else {
            throw FarmError(.internal, "job \(job) has an unknown \(State.self) '\(column ?? "NULL")' in the job store")
        }
        return state
    }

    static func parse<T: Decodable>(_ type: T.Type, _ text: String?) throws -> T {
        try JSONDecoder().decode(T.self, from: Data((text ?? "").utf8))
    }

    public func createJob(_ job: JobRecord, shards: [ShardTask]) throws {
        try db.transaction {
            try db.query("INSERT INTO jobs(\(Self.jobColumns), spec, callback, batch, variant) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", [
                .text(job.id), .text(job.state.rawValue), .integer(Int64(job.priority)), .real(job.created), .null,
                .text(job.session), .text(try Self.json(job.files)), .text(try Self.json(job.paths)),
                .text(try Self.json(job.settings)), .integer(job.totalFrames), .null, job.owner.map { .text($0) } ?? .null,
                job.spec.map { .text($0) } ?? .null, job.callback.map { .text($0) } ?? .null,
                job.batch.map { .text($0) } ?? .null, job.variant.map { .text($0) } ?? .null,
            ])
            guard !job.shardsWritten else { return }
            let texts = try job.shardTexts?.count == shards.count ? job.shardTexts ?? [] : shards.map(Self.json)
            try insertShards(job: job.id, from: 0, texts: texts[...], frames: shards.map(\.frameCount)[...])
        }
    }

    /// Queued shard rows of a job, `texts[i]` being shard `from + i`'s task as JSON.
    /// In statements of at most `SQLStore.rowsOnALoop` rows each: one round trip to a server
    /// for 64 shards, not one per shard.
    func insertShards(job: String, from first: Int, texts: ArraySlice<String>, frames: ArraySlice<Int64>) throws {
        let rows = Array(zip(texts, frames).enumerated())
        for slice in SQLStore.slices(rows) {
            let marks = Array(repeating: "(?,?,?,?,?,NULL,NULL)", count: slice.count).joined(separator: ",")
            var values: [SQLValue] = []
            values.reserveCapacity(slice.count * 5)
            for (offset, (text, count)) in slice {
                values += [.text(job), .integer(Int64(first + offset)), .text(text), .integer(count), .text(ShardState.queued.rawValue)]
            }
            try db.query("INSERT INTO shards VALUES \(marks)", values)
        }
    }


    /// Jobs in `states` (all when nil), oldest first; the states are chosen by the
    /// statement, so a store of many ended jobs does not decode them all to find a few.
    public func jobs(states: [JobPhase]? = nil) throws -> [JobRecord] {
        guard let states else { return try records(try db.query("SELECT \(Self.readColumns) FROM jobs ORDER BY created"), states: nil) }
        return try records(try db.query("SELECT \(Self.readColumns) FROM jobs WHERE state IN (\(SQLStore.marks(states.count))) ORDER BY created",
                                        states.map { .text($0.rawValue) }), states: states)
    }

    public func job(_ id: String) throws -> JobRecord? {
        try records(try db.query("SELECT \(Self.readColumns) FROM jobs WHERE id=?", [.text(id)]), states: nil).first
    }

    /// The compiled spec of a job (JSON), if it was stored with one.
    public func spec(of id: String) throws -> String? {
        try db.query("SELECT spec FROM jobs WHERE id=?", [.text(id)]).first?[0].string
    }

    private static let jobColumns = "id, state, priority, created, finished, session, files, paths, settings, total_frames, error, owner"
    /// What `records` reads: the columns written with a job, and the result's holder, written at its end.
    private static let readColumns = jobColumns + ", result_holder, farm_priority"

    private func records(_ rows: [[SQLValue]], states: [JobPhase]?) throws -> [JobRecord] {
        try rows.compactMap { r in
            guard let id = r[0].string else { return nil }
            let state = try Self.parse(JobPhase.self, column: r[1].string, of: id)
            if let states, !states.contains(state) { return nil }
            var record = JobRecord(id: id, state: state, priority: Int(r[2].int ?? 0), created: r[3].double ?? 0, finished: r[4].double,
                             session: r[5].string ?? "", files: try Self.parse([String: String].self, r[6].string),
                             paths: try Self.parse([String: String].self, r[7].string),
                             settings: try Self.parse(EncoderSettings.self, r[8].string), totalFrames: r[9].int ?? 0, error: r[10].string,
                             owner: r[11].string)
            record.resultHolder = r[12].string
            record.farmPriority = Int(r[13].int ?? 0)
            return record
        }
    }

    /// Jobs that ended before `cutoff`, whose rows may go (`--keep-jobs`): a query for a
    /// lane's connection. A webhook still pending keeps its job.
    public func prunable(endedBefore cutoff: Double, limit: Int = 1000) throws -> [String] {
        try db.query("""
            SELECT id FROM jobs WHERE finished IS NOT NULL AND finished < ?
              AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.job_id = jobs.id AND w.state = ?)
            LIMIT ?
            """, [.real(cutoff), .text(WebhookState.pending.rawValue), .integer(Int64(limit))]).compactMap { $0[0].string }
    }

    /// Deletes at most `rows` of what is kept of an ended job — its attempts, then its
    /// shards, its webhook, and last the job — so that the loop prunes a job of 7,204
    /// shards over many short statements; whether the job is gone.
    public func pruneSlice(of job: String, rows: Int = SQLStore.rowsOnALoop) throws -> Bool {
        for table in ["attempts", "shards", "webhooks"] {
            let row = db.dialect.rowAddress
            try db.query("DELETE FROM \(table) WHERE \(row) IN (SELECT \(row) FROM \(table) WHERE job_id=? LIMIT ?)",
                         [.text(job), .integer(Int64(rows))])
            if db.changes > 0 { return false }
        }
        try db.query("DELETE FROM jobs WHERE id=?", [.text(job)])
        return true
    }

    /// Each shard with its last attempt: who, how long (until `now` while running), how many
    /// attempts, and the last failure's message.
    public func shardDetails(of job: String, now: Double) throws -> [ShardInfo] {
        let attempts = try db.query("""
            SELECT idx, attempt, worker, started, ended, outcome, message FROM attempts WHERE job_id=? ORDER BY idx, attempt
            """, [.text(job)])
        var last: [Int: (count: Int, worker: String?, seconds: Double?, error: String?)] = [:]
        for r in attempts {
            let index = Int(r[0].int ?? 0)
            var entry = last[index] ?? (0, nil, nil, nil)
            entry.count += 1
            entry.worker = r[2].string
            if let started = r[3].double { entry.seconds = max(0, (r[4].double ?? now) - started) }
            if r[5].string.flatMap(AttemptOutcome.init(rawValue:)) == .failed { entry.error = r[6].string }
            last[index] = entry
        }
        return try shards(of: job).map { shard in
            let attempt = last[shard.index]
            let source = shard.worker.map(ChunkSource.init(stored:))
            let reused = source == .reused
            return ShardInfo(index: shard.index, kind: shard.task.kind, segment: shard.task.segment,
                             outputStartFrame: shard.task.outputStartFrame, frames: shard.task.frameCount, state: shard.state,
                             worker: reused ? nil : source?.workerID ?? attempt?.worker, reused: reused ? true : nil,
                             attempts: attempt?.count ?? 0, seconds: reused ? nil : attempt?.seconds, lastError: attempt?.error)
        }
    }

    public func shards(of job: String) throws -> [ShardRecord] {
        try storedShards(of: job).map { try $0.decoded() }
    }

    /// A job's shards with each task as its stored JSON, not decoded.
    public func storedShards(of job: String) throws -> [StoredShard] {
        try db.query("SELECT idx, task, state, sha256, worker FROM shards WHERE job_id=? ORDER BY idx", [.text(job)]).map { r in
            StoredShard(index: Int(r[0].int ?? 0), task: r[1].string ?? "", state: try Self.parse(ShardState.self, column: r[2].string, of: job),
                        sha256: r[3].string, worker: r[4].string)
        }
    }

    public func setPriority(_ job: String, _ priority: Int) throws {
        try db.transaction { try db.query("UPDATE jobs SET priority=? WHERE id=?", [.integer(Int64(priority)), .text(job)]) }
    }

    public func setFarmPriority(_ job: String, _ priority: Int) throws {
        try db.transaction { try db.query("UPDATE jobs SET farm_priority=? WHERE id=?", [.integer(Int64(priority)), .text(job)]) }
    }

    public func setJobState(_ job: String, _ state: JobPhase, error: FarmError? = nil, finished: Double? = nil) throws {
        try db.transaction {
            try db.query("UPDATE jobs SET state=?, error=COALESCE(?, error), error_code=COALESCE(?, error_code), finished=COALESCE(?, finished) WHERE id=?",
                         [.text(state.rawValue), error.map { .text($0.message) } ?? .null, error.map { .text($0.code.rawValue) } ?? .null,
                          finished.map { .real($0) } ?? .null, .text(job)])
            if state == .done, let holder = fence?.term.candidate {
                try db.query("UPDATE jobs SET result_holder=? WHERE id=?", [.text(holder), .text(job)])
            }
            // The job's end and its webhook are one change: once per event, never lost.
            if let finished, state.isFinal {
                try db.query("""
                    INSERT INTO webhooks(job_id, event, url, state, attempts, created, next_at)
                    SELECT id, ?, callback, ?, 0, ?, ? FROM jobs WHERE id=? AND callback IS NOT NULL ON CONFLICT DO NOTHING
                    """, [.text("job.\(state)"), .text(WebhookState.pending.rawValue), .real(finished), .real(finished), .text(job)])
            }
        }
    }

    public func startAttempt(job: String, shard: Int, attempt: Int, worker: String, at time: Double) throws {
        try db.transaction {
            try db.query("UPDATE shards SET state=? WHERE job_id=? AND idx=? AND state!=?",
                         [.text(ShardState.running.rawValue), .text(job), .integer(Int64(shard)), .text(ShardState.done.rawValue)])
            try db.query("""
                INSERT INTO attempts VALUES(?,?,?,?,?,NULL,NULL,NULL) ON CONFLICT(job_id, idx, attempt)
                DO UPDATE SET worker=excluded.worker, started=excluded.started, ended=NULL, outcome=NULL, message=NULL
                """,
                         [.text(job), .integer(Int64(shard)), .integer(Int64(attempt)), .text(worker), .real(time)])
        }
    }

    public func endAttempt(job: String, shard: Int, attempt: Int, outcome: AttemptOutcome, message: String?, at time: Double,
                           requeue: Bool) throws {
        try db.transaction {
            try db.query("UPDATE attempts SET ended=?, outcome=?, message=? WHERE job_id=? AND idx=? AND attempt=?",
                         [.real(time), .text(outcome.rawValue), message.map { .text($0) } ?? .null, .text(job), .integer(Int64(shard)), .integer(Int64(attempt))])
            if requeue {
                try db.query("UPDATE shards SET state=? WHERE job_id=? AND idx=? AND state=?",
                             [.text(ShardState.queued.rawValue), .text(job), .integer(Int64(shard)), .text(ShardState.running.rawValue)])
            }
        }
    }

    public func finishShard(job: String, shard: Int, attempt: Int, sha256: String, by source: ChunkSource, at time: Double) throws {
        try db.transaction {
            try db.query("UPDATE shards SET state=?, sha256=?, worker=? WHERE job_id=? AND idx=?",
                         [.text(ShardState.done.rawValue), .text(sha256), .text(source.stored), .text(job), .integer(Int64(shard))])
            try db.query("UPDATE attempts SET ended=?, outcome=? WHERE job_id=? AND idx=? AND attempt=?",
                         [.real(time), .text(AttemptOutcome.done.rawValue), .text(job), .integer(Int64(shard)), .integer(Int64(attempt))])
            if let worker = source.workerID {
                try db.query("UPDATE workers SET shards_done = shards_done + 1 WHERE id=?", [.text(worker)])
            }
        }
    }

    /// `requeueShard` for many shards of one job at once.
    /// In statements of at most `SQLStore.rowsOnALoop` rows: it runs on the loop.
    public func requeueShards(job: String, _ shards: [Int]) throws {
        try db.transaction {
            for slice in SQLStore.slices(shards) {
                try db.query("UPDATE shards SET state=?, sha256=NULL, worker=NULL WHERE job_id=? AND idx IN (\(SQLStore.marks(slice.count)))",
                             [.text(ShardState.queued.rawValue), .text(job)] + slice.map { .integer(Int64($0)) })
            }
        }
    }

    public func requeueShard(job: String, shard: Int) throws {
        try db.transaction {
            try db.query("UPDATE shards SET state=?, sha256=NULL, worker=NULL WHERE job_id=? AND idx=?",
                         [.text(ShardState.queued.rawValue), .text(job), .integer(Int64(shard))])
        }
    }

    /// Gives every attempt of `job` still without an outcome the outcome `lost`: after a
    /// restart no worker will ever report them, and a shard's history should say so.
    /// Returns how many were closed.
    @discardableResult
    public func closeOpenAttempts(job: String, at time: Double, reason: String) throws -> Int {
        var closed = 0
        try db.transaction {
            closed = try db.query("SELECT COUNT(*) FROM attempts WHERE job_id=? AND outcome IS NULL", [.text(job)]).first?[0].int.map(Int.init) ?? 0
            try db.query("UPDATE attempts SET ended=?, outcome=?, message=? WHERE job_id=? AND outcome IS NULL",
                         [.real(time), .text(AttemptOutcome.lost.rawValue), .text(reason), .text(job)])
        }
        return closed
    }

    /// Every failed attempt of a job, by shard, in order: the worker and the message.
    public func failures(job: String) throws -> [Int: [(worker: String, message: String)]] {
        var failures: [Int: [(worker: String, message: String)]] = [:]
        for row in try db.query("SELECT idx, worker, message FROM attempts WHERE job_id=? AND outcome=? ORDER BY idx, attempt",
                                [.text(job), .text(AttemptOutcome.failed.rawValue)]) {
            failures[Int(row[0].int ?? 0), default: []].append((row[1].string ?? "?", row[2].string ?? ""))
        }
        return failures
    }

    /// Attempts made so far, by shard (shards never tried are absent).
    public func attemptCounts(job: String) throws -> [Int: Int] {
        var counts: [Int: Int] = [:]
        for row in try db.query("SELECT idx, MAX(attempt) FROM attempts WHERE job_id=? GROUP BY idx", [.text(job)]) {
            if let shard = row[0].int, let count = row[1].int { counts[Int(shard)] = Int(count) }
        }
        return counts
    }

    /// Runs several state changes as one transaction (one sync): the coordinator commits
    /// each batch of messages it handles together. Each change inside stays all-or-nothing.
    /// A leader's batch first renews its lease (`fence`): a batch of a coordinator that no
    /// longer leads writes nothing and throws `LeaseLost`.
    public func batch<T>(_ body: () throws -> T) throws -> T {
        do {
            return try db.transaction {
                if let fence, db.transactionDepth == 1 { try renew(fence) }
                return try body()
            }
        } catch {
            // A leader cut off from the store cannot know that it still leads.
            if let fence, !db.isConnected { throw LeaseLost(term: fence.term.number) }
            throw error
        }
    }

    /// The lead this connection writes for, renewed by each of its batches (`LeaderLease`);
    /// nil for a store no other coordinator shares. A job it ends `done` names the lead's
    /// candidate as its result's holder.
    public private(set) var fence: (term: LeaderLease.Term, seconds: Double)?

    /// This connection writes for the leader of `term`, whose lease lasts `seconds`.
    public func lead(_ term: LeaderLease.Term, seconds: Double) throws {
        try LeaderLease.claim(term.number, seconds: seconds, on: db)
        fence = (term, seconds)
    }

    private func renew(_ fence: (term: LeaderLease.Term, seconds: Double)) throws {
        let renewed: Bool
        do {
            renewed = try LeaderLease.renew(fence.term.number, seconds: fence.seconds, on: db)
        } catch {
            renewed = false   // the store cannot tell whether the lease still holds: lead no further
        }
        guard renewed else { throw LeaseLost(term: fence.term.number) }
    }
}
