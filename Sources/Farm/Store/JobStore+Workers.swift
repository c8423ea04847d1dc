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
        let list = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
        return try db.query("SELECT id, shards_done FROM workers WHERE id IN (SELECT value FROM json_each(?))", [.text(list)])
            .reduce(into: [:]) { done, row in if let id = row[0].string { done[id] = Int(row[1].int ?? 0) } }
    }

    /// A content id the coordinator can read at `path` (verified when recorded).
    public func rememberMedia(contentID: String, path: String, size: Int64, mtime: Double) throws {
        try db.query("INSERT OR REPLACE INTO media VALUES(?,?,?,?)", [.text(contentID), .text(path), .integer(size), .real(mtime)])
    }

    /// Whether the client `owner` has sent the bytes of `contentID` (docs/operations.md,
    /// "Trust": a content id alone confirms nothing to a client).
    public func holds(_ owner: String, _ contentID: String) throws -> Bool {
        try !db.query("SELECT 1 FROM media_holders WHERE owner=? AND content_id=?", [.text(owner), .text(contentID)]).isEmpty
    }

    public func recordHolder(_ owner: String, _ contentID: String) throws {
        try db.query("INSERT OR IGNORE INTO media_holders VALUES(?,?)", [.text(owner), .text(contentID)])
    }

    public func knownMedia(path: String, size: Int64, mtime: Double) throws -> String? {
        try db.query("SELECT content_id FROM media WHERE path=? AND size=? AND mtime=?", [.text(path), .integer(size), .real(mtime)]).first?.first?.string
    }
}
