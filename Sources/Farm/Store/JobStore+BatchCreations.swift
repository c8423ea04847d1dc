import Foundation

/// Batches being made (docs/api.md, "Batches"): a batch's jobs are made over several turns
/// of the loop, so a coordinator that stops in the middle would leave some variants of an
/// all-or-none batch. A batch is recorded as begun with its first job, in the same
/// transaction, and forgotten when its last is made; a restart cancels the jobs of every
/// batch still recorded before it resumes anything.
extension JobStore {
    static let batchCreationsSchema = """
        CREATE TABLE IF NOT EXISTS batch_creations(batch TEXT PRIMARY KEY, began REAL NOT NULL) WITHOUT ROWID;
        """

    func beginBatch(_ batch: String, at time: Double) throws {
        try db.query("INSERT OR IGNORE INTO batch_creations VALUES(?,?)", [.text(batch), .real(time)])
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
            let error = FarmError(.cancelled, "the coordinator stopped while making this job's batch: the batch was not created; "
                + "submit it again")
            for batch in batches {
                let open = try db.query("SELECT id FROM jobs WHERE batch=? AND finished IS NULL", [.text(batch)]).compactMap { $0[0].string }
                for id in open { try setJobState(id, .cancelled, error: error, finished: time) }
                try endBatchCreation(batch)
                abandoned.append((batch, open))
            }
            return abandoned
        }
    }
}
