import Foundation
import RenderEngine
import SessionKit

/// Thumbnails and frames on disk (docs/operations.md): one file per picture under a key made of
/// what it shows, an SQLite index of sizes and last use for LRU eviction by bytes, and a
/// memo of content ids by (path, size, mtime). Survives restarts. One thread owns it.
public final class StillCache {
    public let directory: URL
    public let limit: Int64
    private let db: SQLiteDatabase

    public init(directory: URL, limit: Int64) throws {
        self.directory = directory
        self.limit = limit
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        db = try SQLiteDatabase(path: directory.appendingPathComponent("index.sqlite").path)
        try db.execute("""
        CREATE TABLE IF NOT EXISTS stills(key TEXT PRIMARY KEY, media TEXT NOT NULL, bytes INTEGER NOT NULL, used REAL NOT NULL);
        CREATE INDEX IF NOT EXISTS stills_used ON stills(used);
        CREATE INDEX IF NOT EXISTS stills_media ON stills(media);
        CREATE TABLE IF NOT EXISTS media(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime REAL NOT NULL, content_id TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS probes(content_id TEXT PRIMARY KEY, engine TEXT NOT NULL, info TEXT NOT NULL);
        """)
        // The time each picture shows (caches made before tolerances lack it).
        let columns = try db.query("PRAGMA table_info(stills)").compactMap { $0[1].string }
        if !columns.contains("shown") { try db.execute("ALTER TABLE stills ADD COLUMN shown TEXT") }
    }

    /// The default local cache: `$XDG_CACHE_HOME/reelfarm/stills`, else `~/.cache/reelfarm/stills`.
    public static var defaultDirectory: URL {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return base.appendingPathComponent("reelfarm/stills")
    }

    /// The key of a picture: the media, everything the plan draws, the filter files' content
    /// and the engine version (a new engine may draw differently). A tolerant request's key
    /// holds its tolerance: the frame it shows (`StillCached.shown`) follows from the media,
    /// the time and the tolerance, and never answers an exact request.
    public static func key(mediaID: String, plan: StillPlan, filterFiles: [String: String]) throws -> String {
        let filters = try plan.filters.map { filter -> String in
            var copy = filter
            copy.displayName = nil
            if let file = filter.file { copy.file = filterFiles[file] ?? file }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return String(decoding: try encoder.encode(copy), as: UTF8.self)
        }
        let o = plan.orientation, r = plan.cropRect
        let parts = [
            "engine=\(EngineVersion.engine)", "media=\(mediaID)", "orientation=\(o.a),\(o.b),\(o.c),\(o.d)",
            "time=\(plan.sourceTime.numerator)/\(plan.sourceTime.denominator)",
            "crop=\(r.minX),\(r.minY),\(r.width),\(r.height)", "size=\(plan.width)x\(plan.height)",
            "filters=\(filters.joined(separator: ";"))", "scale=\(plan.pixelScale)", "format=\(plan.png ? "png" : "jpeg")",
        ] + (plan.tolerance.isPositive ? ["tolerance=\(plan.tolerance.numerator)/\(plan.tolerance.denominator)"] : [])
        return Digest.sha256(Data(parts.joined(separator: "\n").utf8))
    }

    private func path(_ key: String, png: Bool) -> URL {
        directory.appendingPathComponent(String(key.prefix(2))).appendingPathComponent(key + (png ? ".png" : ".jpg"))
    }

    /// A cached picture: its file and the time (media clock) of the frame it shows.
    public struct Hit {
        public var url: URL
        public var shown: Rational?
    }

    /// The cached picture for `key`, marked as just used; `nil` on a miss.
    public func lookup(_ key: String, png: Bool) throws -> Hit? {
        let url = path(key, png: png)
        guard let row = try db.query("SELECT shown FROM stills WHERE key=?", [.text(key)]).first else { return nil }
        guard FileManager.default.fileExists(atPath: url.path) else {
            try db.query("DELETE FROM stills WHERE key=?", [.text(key)])
            return nil
        }
        try db.query("UPDATE stills SET used=? WHERE key=?", [.real(Date().timeIntervalSince1970), .text(key)])
        return Hit(url: url, shown: row[0].string.flatMap(Self.rational))
    }

    /// `n/d` as stored in the `shown` column.
    private static func rational(_ text: String) -> Rational? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let n = Int64(parts[0]), let d = Int64(parts[1]) else { return nil }
        return Rational(n, d)
    }

    /// Where a new picture for `key` is written before `store` records it.
    public func newFile(_ key: String, png: Bool) throws -> URL {
        let url = path(key, png: png)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        return url
    }

    /// Records the picture written at `newFile(key)` and evicts the least recently used
    /// pictures beyond the limit (never the one just stored).
    public func store(_ key: String, png: Bool, media: String, shown: Rational) throws {
        let url = path(key, png: png)
        let bytes = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? 0
        try db.transaction {
            try db.query("INSERT OR REPLACE INTO stills(key, media, bytes, used, shown) VALUES(?,?,?,?,?)",
                         [.text(key), .text(media), .integer(bytes), .real(Date().timeIntervalSince1970),
                          .text("\(shown.numerator)/\(shown.denominator)")])
        }
        try evict(keeping: key)
    }

    private func evict(keeping key: String) throws {
        var total = try db.query("SELECT COALESCE(SUM(bytes), 0) FROM stills").first?.first?.int ?? 0
        guard total > limit else { return }
        for row in try db.query("SELECT key, bytes FROM stills WHERE key != ? ORDER BY used", [.text(key)]) {
            guard total > limit, let victim = row[0].string else { break }
            for png in [false, true] { try? FileManager.default.removeItem(at: path(victim, png: png)) }
            try db.query("DELETE FROM stills WHERE key=?", [.text(victim)])
            total -= row[1].int ?? 0
        }
    }

    /// Removes every picture of these media; returns how many.
    @discardableResult
    public func invalidate(media: Set<String>) throws -> Int {
        var removed = 0
        for id in media {
            for row in try db.query("SELECT key FROM stills WHERE media=?", [.text(id)]) {
                guard let key = row[0].string else { continue }
                for png in [false, true] { try? FileManager.default.removeItem(at: path(key, png: png)) }
                removed += 1
            }
            try db.query("DELETE FROM stills WHERE media=?", [.text(id)])
        }
        return removed
    }

    public func totalBytes() throws -> Int64 { try db.query("SELECT COALESCE(SUM(bytes), 0) FROM stills").first?.first?.int ?? 0 }
    public func count() throws -> Int { Int(try db.query("SELECT COUNT(*) FROM stills").first?.first?.int ?? 0) }

    /// What a probe of this content found, when an earlier request probed it with this
    /// engine: a picture of a known clip opens the clip once, to decode, not three times.
    public func probe(contentID: String) throws -> MediaInfo? {
        guard let row = try db.query("SELECT info FROM probes WHERE content_id=? AND engine=?",
                                     [.text(contentID), .text(EngineVersion.engine)]).first,
              let text = row[0].string else { return nil }
        return try? JSONDecoder().decode(MediaInfo.self, from: Data(text.utf8))   // an unreadable memo is probed again
    }

    public func remember(_ info: MediaInfo, contentID: String) throws {
        // Asked on every request: a known probe is found by its key alone, not decoded.
        guard try db.query("SELECT 1 FROM probes WHERE content_id=? AND engine=?",
                           [.text(contentID), .text(EngineVersion.engine)]).isEmpty else { return }
        let text = String(decoding: try JSONEncoder().encode(info), as: UTF8.self)
        try db.query("INSERT OR REPLACE INTO probes VALUES(?,?,?)", [.text(contentID), .text(EngineVersion.engine), .text(text)])
    }

    /// The content id of a local file, hashed once per (path, size, mtime).
    public func contentID(of file: URL) throws -> String {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        let size = (attributes[.size] as? Int64) ?? -1
        let mtime = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        if let row = try db.query("SELECT content_id FROM media WHERE path=? AND size=? AND mtime=?",
                                  [.text(file.path), .integer(size), .real(mtime)]).first, let id = row[0].string {
            return id
        }
        let id = try ContentID.of(file: file.path)
        try db.query("INSERT OR REPLACE INTO media VALUES(?,?,?,?)", [.text(file.path), .integer(size), .real(mtime), .text(id)])
        return id
    }
}
