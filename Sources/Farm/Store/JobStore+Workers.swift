import Foundation
import RenderEngine
import SessionKit

/// Workers, and media by path and by holder.
extension JobStore {
    public func recordWorker(id: String, host: String, slots: Int, at time: Double) throws {
        try db.transaction {
            try db.query("INSERT INTO workers VALUES(?,?,?,?,0) ON CONFLICT(id) DO UPDATE SET host=excluded.host, slots=excluded.slots, last_seen=excluded.last_seen",
                         [.text(id), .text(host), .integer(Int64(slots)), .real(time)])
        }
    }

    /// Shards done by each of `ids`, in one query (a lane's: a farm of 1,000 workers).
    public func shardsDone(byWorkers ids: [String]) throws -> [String: Int] {
        var done: [String: Int] = [:]
        for part in SQLStore.slices(ids, of: 500) {
            for row in try db.query("SELECT id, shards_done FROM workers WHERE id IN (\(SQLStore.marks(part.count)))", part.map { .text($0) }) {
                if let id = row[0].string { done[id] = Int(row[1].int ?? 0) }
            }
        }
        return done
    }

    /// A content id the coordinator can read at `path` (verified when recorded).
    public func rememberMedia(contentID: String, path: String, size: Int64, mtime: Double) throws {
        try db.query("""
            INSERT INTO media VALUES(?,?,?,?) ON CONFLICT(content_id) DO UPDATE SET path=excluded.path, size=excluded.size, mtime=excluded.mtime
            """, [.text(contentID), .text(path), .integer(size), .real(mtime)])
    }

    /// Whether the client `owner` has sent the bytes of `contentID` (docs/operations.md,
    /// "Trust": a content id alone confirms nothing to a client).
    public func holds(_ owner: String, _ contentID: String) throws -> Bool {
        try !db.query("SELECT 1 FROM media_holders WHERE owner=? AND content_id=?", [.text(owner), .text(contentID)]).isEmpty
    }

    public func recordHolder(_ owner: String, _ contentID: String) throws {
        try db.query("INSERT INTO media_holders VALUES(?,?) ON CONFLICT DO NOTHING", [.text(owner), .text(contentID)])
    }

    public func knownMedia(path: String, size: Int64, mtime: Double) throws -> String? {
        try db.query("SELECT content_id FROM media WHERE path=? AND size=? AND mtime=?", [.text(path), .integer(size), .real(mtime)]).first?.first?.string
    }
}
