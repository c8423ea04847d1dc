import Foundation
import Synchronization

/// Finished chunks kept by the key of their recipe (docs/rendering.md, "Reusing
/// chunks"), least recently used first out once the directory is over its limit. Files
/// are hard links to the jobs' chunks where the file system allows, so keeping one costs
/// no copy; a job's own chunk directory can then go when the job ends.
///
/// A file is named `KEY.SHA256.mp4`, and what is there is listed once, at start, into an
/// index in memory (key → checksum, size, last use): the loop looks a key up and links a
/// kept chunk into a job without reading or hashing it, and keeping a chunk (on the I/O
/// lane) lists nothing. The last use is the file's modification time at start, then
/// memory's.
final class ChunkCache: Sendable {
    struct Entry: Sendable {
        var url: URL
        var sha256: String
        var size: Int64
        var used: Date
    }

    let directory: URL
    let limitBytes: Int64
    private let index = Mutex<[String: Entry]>([:])

    init(directory: URL, limitBytes: Int64) throws {
        self.directory = directory
        self.limitBytes = limitBytes
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        var entries: [String: Entry] = [:]
        for url in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) {
            let parts = url.lastPathComponent.split(separator: ".")
            guard parts.count == 3, parts[2] == "mp4" else {
                // A partial copy or a file of an older release (named by key alone): not usable.
                try? FileManager.default.removeItem(at: url)
                continue
            }
            let values = try url.resourceValues(forKeys: Set(keys))
            entries[String(parts[0])] = Entry(url: url, sha256: String(parts[1]), size: Int64(values.fileSize ?? 0),
                                              used: values.contentModificationDate ?? .distantPast)
        }
        index.withLock { $0 = entries }
    }

    /// Bytes of the kept chunks.
    var totalBytes: Int64 { index.withLock { $0.values.reduce(0) { $0 + $1.size } } }

    /// The chunk kept under `key` and its checksum, marked as just used.
    func lookup(_ key: String) -> Entry? {
        guard limitBytes > 0 else { return nil }
        return index.withLock { entries in
            entries[key]?.used = Date()
            return entries[key]
        }
    }

    /// Keeps `file` (whose bytes hash to `sha256`) under `key`, then trims the cache to its
    /// limit. Blocks on the disk: called on the I/O lane.
    func keep(_ file: URL, key: String, sha256: String) throws {
        guard limitBytes > 0, index.withLock({ $0[key] == nil }) else { return }
        let target = directory.appendingPathComponent("\(key).\(sha256).mp4")
        let partial = directory.appendingPathComponent(UUID().uuidString + ".part")
        do {
            try FileManager.default.linkItem(at: file, to: partial)
        } catch {
            try FileManager.default.copyItem(at: file, to: partial)
        }
        try FileManager.default.moveItem(at: partial, to: target)
        let size = Int64((try target.resourceValues(forKeys: [.fileSizeKey])).fileSize ?? 0)
        let evicted = index.withLock { entries -> [URL] in
            entries[key] = Entry(url: target, sha256: sha256, size: size, used: Date())
            return Self.overflow(of: &entries, limit: limitBytes)
        }
        for url in evicted { try FileManager.default.removeItem(at: url) }
    }

    /// Past the limit, the least recently used entries leave the index until 90 % of it is
    /// kept, so the next trims are many chunks away; returns their files.
    private static func overflow(of entries: inout [String: Entry], limit: Int64) -> [URL] {
        var total = entries.values.reduce(0) { $0 + $1.size }
        guard total > limit else { return [] }
        var evicted: [URL] = []
        for (key, entry) in entries.sorted(by: { $0.value.used < $1.value.used }) where total > limit / 10 * 9 {
            entries[key] = nil
            evicted.append(entry.url)
            total -= entry.size
        }
        return evicted
    }
}
