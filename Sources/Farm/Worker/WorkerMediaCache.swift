import Foundation
import SessionKit
import RenderEngine

/// The worker's content-addressed media cache (`<dir>/<hex>`) with a size limit: least
/// recently used files go first. Files named by the coordinator are used in place when
/// this machine can read them and their bytes match the content id (shared filesystem).
final class WorkerMediaCache {
    let directory: URL
    let limit: Int64
    private var verifiedPaths: [String: (size: Int64, mtime: Double, contentID: String)] = [:]
    /// Files first read in place since the last `takeInPlaceNews()`: hashed to check them,
    /// or taken on the coordinator's word (its stat matched). For the worker's log.
    private var inPlaceNews: [(path: String, trusted: Bool)] = []

    func takeInPlaceNews() -> [(path: String, trusted: Bool)] {
        defer { inPlaceNews = [] }
        return inPlaceNews
    }

    init(directory: URL, limit: Int64) throws {
        self.directory = directory
        self.limit = limit
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func cached(_ contentID: String) -> URL? {
        guard let hex = MediaLocatorContentID.hex(contentID) else { return nil }
        let url = directory.appendingPathComponent(hex)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        // Touch: the LRU order is by modification time.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: url.path)
        return url
    }

    /// `path` when it is readable here and holds `contentID`'s bytes. `trusted`: the stat
    /// the coordinator saw when it verified the same path; when this file has it too, the
    /// file is not hashed again here.
    func inPlace(_ path: String?, contentID: String, trusted: FileStat? = nil) -> URL? {
        guard let path, let stat = FileStat.of(path) else { return nil }
        let (size, mtime) = (stat.size, stat.mtime)
        if let trusted, trusted == stat, verifiedPaths[path] == nil {
            inPlaceNews.append((path, true))
            verifiedPaths[path] = (size, mtime, contentID)
            return URL(fileURLWithPath: path)
        }
        if let trusted, trusted == stat {
            return URL(fileURLWithPath: path)
        }
        if let known = verifiedPaths[path], known.size == size, known.mtime == mtime {
            return known.contentID == contentID ? URL(fileURLWithPath: path) : nil
        }
        guard let actual = try? ContentID.of(file: path) else { return nil }
        inPlaceNews.append((path, false))
        verifiedPaths[path] = (size, mtime, actual)
        return actual == contentID ? URL(fileURLWithPath: path) : nil
    }

    func partialURL(_ contentID: String) -> URL? {
        MediaLocatorContentID.hex(contentID).map { directory.appendingPathComponent($0 + ".part") }
    }

    /// Moves a fully fetched file into the cache after checking its content id.
    func complete(_ contentID: String, keeping inUse: Set<String>) throws -> URL {
        guard let hex = MediaLocatorContentID.hex(contentID), let partial = partialURL(contentID) else {
            throw FarmError(.invalidInput, "'\(contentID)' is not a content id")
        }
        guard try ContentID.of(file: partial.path) == contentID else {
            try? FileManager.default.removeItem(at: partial)
            throw FarmError(.ioFailed, "fetched media does not match \(contentID)")
        }
        let final = directory.appendingPathComponent(hex)
        try? FileManager.default.removeItem(at: final)
        try FileManager.default.moveItem(at: partial, to: final)
        evict(keeping: inUse.union([contentID]))
        return final
    }

    /// Bytes of blocks delivered since the cache last looked at its size.
    private var deliveredSinceEviction: Int64 = 0
    /// How far blocks may take the cache past its limit before it looks: a look lists and
    /// stats every file in it, which after one video shard's blocks took milliseconds, and
    /// per delivered block slowed an audio piece's exact reads eightfold.
    var evictionSlack: Int64 { min(16 << 20, max(1, limit / 16)) }

    /// Counts a delivered block; evicts once the blocks since the last look pass the slack.
    func delivered(_ bytes: Int, keeping inUse: @autoclosure () -> Set<String>) {
        deliveredSinceEviction += Int64(bytes)
        guard deliveredSinceEviction >= evictionSlack else { return }
        deliveredSinceEviction = 0
        evict(keeping: inUse())
    }

    /// Removes least recently used files until the cache fits its limit.
    func evict(keeping inUse: Set<String>) {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let items = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) else { return }
        // Only media this cache wrote (named by their content id): the worker's scratch and
        // stills directories live beside them and are not the cache's to remove.
        // Blocks of media read by ranges are `<hex>.b<index>`.
        func contentID(_ url: URL) -> String { "sha256:" + url.lastPathComponent.prefix(64) }
        let owned = items.filter { url in
            let name = url.lastPathComponent
            return MediaLocatorContentID.hex(contentID(url)) != nil && (name.count == 64 || name.dropFirst(64).hasPrefix(".b"))
        }
        var files = owned.compactMap { url -> (URL, Int64, Date)? in
            guard let values = try? url.resourceValues(forKeys: Set(keys)) else { return nil }
            return (url, Int64(values.fileSize ?? 0), values.contentModificationDate ?? .distantPast)
        }.sorted { $0.2 < $1.2 }
        var total = files.reduce(0) { $0 + $1.1 }
        while total > limit, let oldest = files.first {
            files.removeFirst()
            if inUse.contains(contentID(oldest.0)) { continue }
            try? FileManager.default.removeItem(at: oldest.0)
            total -= oldest.1
        }
    }
}
