import Foundation

/// Finished chunks kept by the key of their recipe (docs/operations.md, "Reusing
/// chunks"), least recently used first out once the directory is over its limit. Files
/// are hard links to the jobs' chunks where the file system allows, so keeping one costs
/// no copy; a job's own chunk directory can then go when the job ends.
final class ChunkCache {
    let directory: URL
    let limitBytes: Int64

    init(directory: URL, limitBytes: Int64) throws {
        self.directory = directory
        self.limitBytes = limitBytes
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
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
        try trim()
    }

    /// Removes the least recently used chunks until the total is within the limit.
    private func trim() throws {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        var files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)
            .filter { $0.pathExtension == "mp4" }
            .map { url -> (URL, Int64, Date) in
                let values = try url.resourceValues(forKeys: Set(keys))
                return (url, Int64(values.fileSize ?? 0), values.contentModificationDate ?? .distantPast)
            }
        var total = files.reduce(0) { $0 + $1.1 }
        files.sort { $0.2 < $1.2 }
        for (url, size, _) in files where total > limitBytes {
            try FileManager.default.removeItem(at: url)
            total -= size
        }
    }
}
