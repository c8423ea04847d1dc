import Foundation

/// The job store's tables (docs/architecture.md, "The store"), written once in SQLite's
/// words and read by PostgreSQL with its own types (`postgres(_:)`). Every connection makes
/// what is missing when it opens: a new store, or one of an older release (columns added
/// since are added to it).
enum StoreSchema {
    static let tables = """
        CREATE TABLE IF NOT EXISTS jobs(
          id TEXT PRIMARY KEY, state TEXT NOT NULL, priority INTEGER NOT NULL, created REAL NOT NULL, finished REAL,
          session TEXT NOT NULL, files TEXT NOT NULL, paths TEXT NOT NULL, settings TEXT NOT NULL,
          total_frames INTEGER NOT NULL, error TEXT);
        CREATE TABLE IF NOT EXISTS shards(
          job_id TEXT NOT NULL REFERENCES jobs(id), idx INTEGER NOT NULL, task TEXT NOT NULL, frames INTEGER NOT NULL,
          state TEXT NOT NULL, sha256 TEXT, worker TEXT, PRIMARY KEY(job_id, idx));
        CREATE TABLE IF NOT EXISTS attempts(
          job_id TEXT NOT NULL, idx INTEGER NOT NULL, attempt INTEGER NOT NULL, worker TEXT NOT NULL,
          started REAL NOT NULL, ended REAL, outcome TEXT, message TEXT, PRIMARY KEY(job_id, idx, attempt));
        CREATE TABLE IF NOT EXISTS workers(
          id TEXT PRIMARY KEY, host TEXT NOT NULL, slots INTEGER NOT NULL, last_seen REAL NOT NULL, shards_done INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS media(content_id TEXT PRIMARY KEY, path TEXT NOT NULL, size INTEGER NOT NULL, mtime REAL NOT NULL);
        CREATE TABLE IF NOT EXISTS media_holders(owner TEXT NOT NULL, content_id TEXT NOT NULL, PRIMARY KEY(owner, content_id)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS media_probes(content_id TEXT PRIMARY KEY, info TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS webhooks(
          job_id TEXT NOT NULL, event TEXT NOT NULL, url TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL,
          created REAL NOT NULL, next_at REAL NOT NULL, last_status INTEGER, last_error TEXT, delivered_at REAL,
          PRIMARY KEY(job_id, event));
        """

    /// Columns added to `jobs` after its first release, in order, with what each is for.
    static let addedJobColumns: [(name: String, type: String)] = [
        ("owner", "TEXT"),       // the submitting client's CURVE key: jobs of older stores have none
        ("spec", "TEXT"),        // the compiled spec; older jobs are compiled again on resume
        ("callback", "TEXT"),    // where the job's end is announced (docs/api.md, "Webhooks")
        ("published", "TEXT"),   // where its result was sent (docs/api.md, "Output to a URL")
        ("batch", "TEXT"),       // the batch it is a variant of (docs/api.md, "Batches")
        ("variant", "TEXT"),
        ("error_code", "TEXT"),
        ("result_holder", "TEXT"),   // the coordinator whose disk holds the result (docs/operations.md, "A standby coordinator")
        ("farm_priority", "INTEGER"),   // an admin's farm-wide priority (docs/operations.md, "Tenants")
    ]

    /// Listing pages newest first, per owner, and pruning by end time read these.
    static let indexes = """
        CREATE INDEX IF NOT EXISTS jobs_by_created ON jobs(created, id);
        CREATE INDEX IF NOT EXISTS jobs_by_owner ON jobs(owner, created, id);
        CREATE INDEX IF NOT EXISTS jobs_by_finished ON jobs(finished);
        CREATE INDEX IF NOT EXISTS jobs_by_batch ON jobs(batch) WHERE batch IS NOT NULL;
        """

    static func make(on db: any SQLDatabase) throws {
        switch db.dialect {
        case .sqlite:
            try db.execute(tables)
            let columns = try db.query("PRAGMA table_info(jobs)").compactMap { $0[1].string }
            try addMissing(columns, on: db)
            try db.execute(indexes + JobStore.idempotencySchema + JobStore.batchCreationsSchema)
        case .postgres:
            // A connection opened while the loop writes makes no DDL when there is nothing to
            // make: `CREATE INDEX IF NOT EXISTS` locks its table before it looks, and would
            // wait for the loop's turn (and the loop's next turn for it).
            if try current(on: db) { return }
            // Coordinators starting together make the tables once: the lock is the
            // transaction's, and each CREATE sees what the one before it made.
            try db.transaction {
                try db.query("SELECT pg_advisory_xact_lock(?)", [.integer(advisoryLock)])
                try db.execute(postgres(tables))
                let columns = try db.query("""
                    SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'jobs'
                    """).compactMap { $0[0].string }
                try addMissing(columns, on: db)
                // A batch's variants are listed in the order they were made (SQLite's rowid).
                if !columns.contains("seq") { try db.execute("ALTER TABLE jobs ADD COLUMN seq BIGINT GENERATED ALWAYS AS IDENTITY") }
                try db.execute(postgres(indexes + JobStore.idempotencySchema + JobStore.batchCreationsSchema) + LeaderLease.schema)
                // An older release's connection leaves a newer release's version as it is.
                try db.execute("CREATE TABLE IF NOT EXISTS reelfarm_schema(version INTEGER NOT NULL)")
                if (try db.query("SELECT MAX(version) FROM reelfarm_schema").first?[0].int ?? 0) < version {
                    try db.execute("DELETE FROM reelfarm_schema")
                    try db.query("INSERT INTO reelfarm_schema VALUES(?)", [.integer(version)])
                }
            }
        }
    }

    /// The tables' version on PostgreSQL: raised with every change to them, so that a
    /// newer release makes what it adds.
    static let version: Int64 = 2

    /// Whether the server's tables are this release's already.
    private static func current(on db: any SQLDatabase) throws -> Bool {
        do {
            return (try db.query("SELECT MAX(version) FROM reelfarm_schema").first?[0].int ?? 0) >= version
        } catch let failure as PostgresDatabase.Failure where failure.state == "42P01" {
            return false   // no such table: a new store
        }
    }

    private static func addMissing(_ columns: [String], on db: any SQLDatabase) throws {
        for column in addedJobColumns where !columns.contains(column.name) {
            try db.execute("ALTER TABLE jobs ADD COLUMN \(column.name) \(column.type)")
        }
    }

    /// The lock the schema is made under ("reelfarm" in ASCII).
    static let advisoryLock: Int64 = 0x7265_656c_6661_726d

    /// SQLite's DDL in PostgreSQL's types: `REAL` is 4 bytes there, `INTEGER` too; every
    /// table has a primary key, so `WITHOUT ROWID` has nothing to say.
    static func postgres(_ sql: String) -> String {
        sql.replacingOccurrences(of: " WITHOUT ROWID", with: "")
            .replacingOccurrences(of: #"\bREAL\b"#, with: "DOUBLE PRECISION", options: .regularExpression)
            .replacingOccurrences(of: #"\bINTEGER\b"#, with: "BIGINT", options: .regularExpression)
            .replacingOccurrences(of: #"\bBLOB\b"#, with: "BYTEA", options: .regularExpression)
    }
}
