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
    private var uploads: [String: FileHandle] = [:]
    /// Where a content id's bytes are: uploads here, files in place under the roots.
    let catalog: MediaCatalog
    var roots: [URL] { catalog.roots }

    init(directory: URL, store: JobStore, roots: [URL]) throws {
        self.directory = directory
        self.store = store
        catalog = MediaCatalog(directory: directory, roots: roots)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    static func hex(_ contentID: String) -> String? {
        MediaLocatorContentID.hex(contentID)
    }

    /// A readable local file whose bytes have content id `contentID`, if there is one; a
    /// file in place hashed now is remembered by path, size and time.
    func file(for contentID: String, candidate: String?) -> URL? {
        catalog.file(for: contentID, candidate: candidate, known: known) { path, stat in
            remember(contentID: contentID, path: path, stat: stat)
        }
    }

    /// Where an upload's bytes are kept, once complete.
    func uploaded(_ contentID: String) -> URL? {
        guard let hex = Self.hex(contentID) else { return nil }
        let path = catalog.directory.appendingPathComponent(hex)
        return FileManager.default.fileExists(atPath: path.path) ? path : nil
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

    /// Removes uploads last used before `cutoff` (seconds since 1970) whose content ids are
    /// not in `inUse`, and unfinished uploads as old; returns the content ids removed.
    func removeUploads(olderThan cutoff: Double, except inUse: Set<String>) -> [String] {
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) else { return [] }
        var removed: [String] = []
        for url in files {
            let name = url.lastPathComponent
            let hex = name.hasSuffix(".part") ? String(name.dropLast(5)) : name
            guard let used = (try? url.resourceValues(forKeys: Set(keys)))?.contentModificationDate?.timeIntervalSince1970,
                  used < cutoff, !inUse.contains("sha256:" + hex), uploads[hex] == nil else { continue }
            do {
                try FileManager.default.removeItem(at: url)
                if !name.hasSuffix(".part") { removed.append("sha256:" + hex) }
            } catch {
                continue   // still there: tried again at the next sweep
            }
        }
        return removed
    }

    /// The stat of `path` when the coordinator has verified that it holds `contentID`.
    func verifiedStat(of path: String, contentID: String) -> FileStat? {
        catalog.verifiedStat(of: path, contentID: contentID, known: known)
    }

    /// Appends an uploaded block; returns the bytes received and whether the file is complete and verified.
    /// `uploader`: a client that must send the bytes even of a stored file, to show it
    /// holds them (its own partial file, checked, then dropped); nil for one that need not.
    func receive(_ upload: Upload, data: Data, uploader: String? = nil) throws -> (Int, Bool) {
        guard let hex = Self.hex(upload.contentID) else { throw FarmError(.invalidInput, "'\(upload.contentID)' is not a content id") }
        let final = directory.appendingPathComponent(hex)
        let stored = FileManager.default.fileExists(atPath: final.path)
        if stored, uploader == nil { return (upload.total, true) }
        let key = stored ? hex + "." + Self.tag(uploader ?? "") : hex
        let partial = directory.appendingPathComponent(key + ".part")
        if upload.offset == 0 {
            uploads[key]?.closeFile()
            _ = FileManager.default.createFile(atPath: partial.path, contents: nil)
            uploads[key] = try FileHandle(forWritingTo: partial)
        }
        guard let handle = uploads[key] else { throw FarmError(.invalidInput, "upload of \(upload.contentID) did not start at offset 0") }
        let position = Int(try handle.seekToEnd())
        guard position == upload.offset else { throw FarmError(.invalidInput, "upload block at \(upload.offset), expected \(position)") }
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw FarmError(.ioFailed, "cannot store the upload of \(upload.contentID): \(FileErrorText.describe(error))")
        }
        let received = position + data.count
        guard received >= upload.total else { return (received, false) }
        try handle.close()
        uploads[key] = nil
        guard try ContentID.of(file: partial.path) == upload.contentID else {
            try? FileManager.default.removeItem(at: partial)
            throw FarmError(.invalidInput, "upload of \(upload.contentID) does not match its content id")
        }
        if stored {
            try? FileManager.default.removeItem(at: partial)   // the bytes were shown; the store keeps its copy
        } else {
            try FileManager.default.moveItem(at: partial, to: final)
        }
        return (received, true)
    }

    /// A short name for an uploader in a partial file's name.
    static func tag(_ uploader: String) -> String {
        SHA256.hash(data: Data(uploader.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// A block of a stored file for a worker: its bytes, `missing` when the store has no
    /// such file, or the read's error (never a short block that looks whole).
    func block(_ request: MediaRequest, candidate: String?) -> (MediaBlock, Data) {
        var block = MediaBlock(contentID: request.contentID, offset: request.offset, total: 0, missing: true)
        guard let url = file(for: request.contentID, candidate: candidate) else { return (block, Data()) }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }   // read-only: closing cannot lose data
            block.total = Int(try handle.seekToEnd())
            block.missing = false
            try handle.seek(toOffset: UInt64(max(0, request.offset)))
            let data = try handle.read(upToCount: min(request.length, WireProtocol.blockSize)) ?? Data()
            return (block, data)
        } catch {
            block.error = FarmError(.ioFailed, "the coordinator cannot read \(request.contentID): \(FileErrorText.describe(error))")
            return (block, Data())
        }
    }
}

extension MediaStore {
    static func isInside(_ path: String, _ roots: [URL]) -> Bool {
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
