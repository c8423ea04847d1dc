import Foundation

/// Finished chunks kept by the key of their recipe (docs/rendering.md, "Reusing
/// chunks"), least recently used first out once the directory is over its limit. Files
/// are hard links to the jobs' chunks where the file system allows, so keeping one costs
/// no copy; a job's own chunk directory can then go when the job ends.
final class ChunkCache {
    let directory: URL
    let limitBytes: Int64
    /// Bytes in the cache, counted once at start and then kept up to date, so keeping a
    /// chunk does not list the directory; only a trim does.
    private(set) var totalBytes: Int64 = 0

    init(directory: URL, limitBytes: Int64) throws {
        self.directory = directory
        self.limitBytes = limitBytes
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        totalBytes = try entries().reduce(0) { $0 + $1.size }
    }

    private func path(_ key: String) -> URL { directory.appendingPathComponent(key + ".mp4") }

    /// The chunk kept under `key`, marked as just used.
    func lookup(_ key: String) -> URL? {
        guard limitBytes > 0 else { return nil }
        let url = path(key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: url.path)   // LRU order only
        return url
    }

    /// Keeps `file` under `key`, then trims the cache to its limit.
    func keep(_ file: URL, key: String) throws {
        guard limitBytes > 0 else { return }
        let target = path(key)
        guard !FileManager.default.fileExists(atPath: target.path) else { return }
        let partial = directory.appendingPathComponent(key + ".part")
        try? FileManager.default.removeItem(at: partial)   // a leftover of a crash
        do {
            try FileManager.default.linkItem(at: file, to: partial)
        } catch {
            try FileManager.default.copyItem(at: file, to: partial)
        }
        try FileManager.default.moveItem(at: partial, to: target)
        totalBytes += Int64((try target.resourceValues(forKeys: [.fileSizeKey])).fileSize ?? 0)
        if totalBytes > limitBytes { try trim() }
    }

    private func entries() throws -> [(url: URL, size: Int64, used: Date)] {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)
            .filter { $0.pathExtension == "mp4" }
            .map { url in
                let values = try url.resourceValues(forKeys: Set(keys))
                return (url, Int64(values.fileSize ?? 0), values.contentModificationDate ?? .distantPast)
            }
    }

    /// Removes the least recently used chunks until the total is 90 % of the limit, so
    /// the next trims are many chunks away.
    private func trim() throws {
        var total = try entries().reduce(0) { $0 + $1.size }
        for entry in try entries().sorted(by: { $0.used < $1.used }) where total > limitBytes / 10 * 9 {
            try FileManager.default.removeItem(at: entry.url)
            total -= entry.size
        }
        totalBytes = total
    }
}
