import Foundation

/// Batches and jobs being made (docs/api.md, "Batches"; docs/architecture.md, "The loop
/// does not block"): a batch's jobs, and a large job's shard rows, are written over several
/// turns of the loop, so a coordinator that stops in the middle would leave some variants
/// of an all-or-none batch, or a job short of shards. Each is recorded as begun (under the
/// batch's id, or the job's) in the transaction of its first rows, and forgotten when its
/// last are written; a restart cancels the jobs of every one still recorded before it
/// resumes anything.
extension JobStore {
    static let batchCreationsSchema = """
        CREATE TABLE IF NOT EXISTS batch_creations(batch TEXT PRIMARY KEY, began REAL NOT NULL) WITHOUT ROWID;
        """

    func beginBatch(_ batch: String, at time: Double) throws {
        try db.query("INSERT INTO batch_creations VALUES(?,?) ON CONFLICT DO NOTHING", [.text(batch), .real(time)])
    }

    func endBatchCreation(_ batch: String) throws {
        try db.query("DELETE FROM batch_creations WHERE batch=?", [.text(batch)])
    }

    /// Cancels the unfinished jobs of every batch a stopped coordinator was making, and
    /// forgets those batches; returns the batches and the jobs cancelled of each.
    func abandonUnfinishedBatches(at time: Double) throws -> [(batch: String, cancelled: [String])] {
        try db.transaction {
            let batches = try db.query("SELECT batch FROM batch_creations ORDER BY began").compactMap { $0[0].string }
            var abandoned: [(batch: String, cancelled: [String])] = []
            let error = FarmError(.cancelled, "the coordinator stopped while making this job (or its batch): it was not created; "
                + "submit it again")
            for batch in batches {
                let open = try db.query("SELECT id FROM jobs WHERE (batch=? OR id=?) AND finished IS NULL", [.text(batch), .text(batch)])
                    .compactMap { $0[0].string }
                for id in open { try setJobState(id, .cancelled, error: error, finished: time) }
                try endBatchCreation(batch)
                abandoned.append((batch, open))
            }
            return abandoned
        }
    }
}
