import Crypto
import Foundation
import SessionKit
import RenderEngine

/// Content-addressed media on the coordinator: uploads land in `media/<hex>`; files the
/// coordinator can read in place are remembered by path, size and mtime, so each is
/// hashed once.
final class MediaStore {
    let directory: URL
    private let store: JobStore
    /// Uploads being received (on the I/O lane).
    let receiver: UploadReceiver
    /// Where a content id's bytes are: uploads here, files in place under the roots.
    let catalog: MediaCatalog
    var roots: [URL] { catalog.roots }

    init(directory: URL, store: JobStore, roots: [URL]) throws {
        self.directory = directory
        self.store = store
        catalog = MediaCatalog(directory: directory, roots: roots)
        receiver = UploadReceiver(directory: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    static func hex(_ contentID: String) -> String? {
        MediaLocatorContentID.hex(contentID)
    }

    /// Where an upload's bytes are kept once complete (whether they are there is the
    /// reader's to find: it is not asked on the loop).
    func uploadPath(_ contentID: String) -> URL? {
        Self.hex(contentID).map { catalog.directory.appendingPathComponent($0) }
    }

    /// The content id remembered for a file in place of this size and time.
    func known(_ path: String, _ stat: FileStat) -> String? {
        do {
            return try store.knownMedia(path: path, size: stat.size, mtime: stat.mtime)
        } catch {
            return nil   // not remembered: the file is hashed again, which gives the same answer
        }
    }

    /// Remembers a verified file in place, so it is not hashed again. A failed write only
    /// costs that hash.
    func remember(contentID: String, path: String, stat: FileStat) {
        do {
            try store.rememberMedia(contentID: contentID, path: path, size: stat.size, mtime: stat.mtime)
        } catch {
            return
        }
    }

    /// Removes the named files of `media/` still unused since `cutoff` (their time is read
    /// again here, on the I/O lane: a job may have used one since it was listed) and not
    /// being received; returns the content ids of the uploads removed.
    static func removeUploads(_ names: [String], in directory: URL, unusedSince cutoff: Double, receiver: UploadReceiver) -> [String] {
        var removed: [String] = []
        for name in names {
            let url = directory.appendingPathComponent(name)
            let hex = name.hasSuffix(".part") ? String(name.dropLast(5)) : name
            guard let used = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate?.timeIntervalSince1970,
                  used < cutoff, !receiver.isOpen(hex) else { continue }
            do {
                try Disk.remove(url.path)
                if !name.hasSuffix(".part") { removed.append("sha256:" + hex) }
            } catch {
                continue   // still there: tried again at the next sweep
            }
        }
        return removed
    }
}

extension MediaStore {
    static func isInside(_ path: String, _ roots: [URL]) -> Bool {
        LoopGuard.assertMayBlock("resolving \(path)")
        let real = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        return roots.contains { root in
            let r = root.path.hasSuffix("/") ? String(root.path.dropLast()) : root.path
            return r.isEmpty || real == r || real.hasPrefix(r + "/")
        }
    }
}

enum MediaLocatorContentID {
    /// `sha256:<64 hex>` → the hex.
    static func hex(_ contentID: String) -> String? { ContentID(contentID)?.hex }
}
