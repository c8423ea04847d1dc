import Foundation

/// The first answer to each `Idempotency-Key` (docs/api.md, "Retrying a submission"): a
/// retry of a created job or batch gets that answer again, not a second job. Kept for as
/// long as ended jobs are (`--keep-jobs`), per owner, with the SHA-256 of the request it
/// answered, so the same key with another request is refused rather than answered wrongly.
extension JobStore {
    public struct FirstAnswer: Sendable {
        public var requestSHA256: String
        public var reply: Submitted
    }

    static let idempotencySchema = """
        CREATE TABLE IF NOT EXISTS idempotency(
          owner TEXT NOT NULL, key TEXT NOT NULL, request_sha256 TEXT NOT NULL, reply TEXT NOT NULL, created REAL NOT NULL,
          PRIMARY KEY(owner, key)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS idempotency_by_created ON idempotency(created);
        """

    public func firstAnswer(owner: String?, key: String) throws -> FirstAnswer? {
        guard let row = try db.query("SELECT request_sha256, reply FROM idempotency WHERE owner=? AND key=?",
                                     [.text(owner ?? ""), .text(key)]).first,
              let digest = row[0].string, let reply = row[1].string else { return nil }
        return FirstAnswer(requestSHA256: digest, reply: try JSONDecoder().decode(Submitted.self, from: Data(reply.utf8)))
    }

    public func recordFirstAnswer(owner: String?, key: String, requestSHA256: String, reply: Submitted, at time: Double) throws {
        try db.query("INSERT INTO idempotency VALUES(?,?,?,?,?) ON CONFLICT DO NOTHING", [
            .text(owner ?? ""), .text(key), .text(requestSHA256),
            .text(String(decoding: try JSONEncoder().encode(reply), as: UTF8.self)), .real(time),
        ])
    }

    /// Forgets the answers given before `cutoff`.
    /// Forgets at most `limit` of the answers given before `cutoff`; how many it forgot.
    @discardableResult
    public func forgetAnswers(before cutoff: Double, limit: Int = SQLStore.rowsOnALoop) throws -> Int {
        try db.query("""
            DELETE FROM idempotency WHERE (owner, key) IN (SELECT owner, key FROM idempotency WHERE created < ? LIMIT ?)
            """, [.real(cutoff), .integer(Int64(limit))])
        return db.changes
    }
}
