import Foundation
import RenderEngine
import SessionKit

/// Where the coordinator finds a content id's bytes (docs/operations.md, "Media"): its
/// upload in `media/<hex>`, or a regular file in place under a media root — one whose
/// size and modification time match a hash remembered for its path, or one hashed now.
/// A value with no connection of its own: the loop looks remembered hashes up in its
/// store, the submission compiler in its own (`known`), and each records what it hashed
/// (`verified`).
struct MediaCatalog: Sendable {
    let directory: URL
    /// Directories whose files may be read in place; anything else must be uploaded.
    let roots: [URL]

    init(directory: URL, roots: [URL]) {
        self.directory = directory
        self.roots = roots.map { $0.standardizedFileURL.resolvingSymlinksInPath() }
    }

    /// A readable local file whose bytes have content id `contentID`, if there is one.
    func file(for contentID: String, candidate: String?, known: (String, FileStat) -> String?,
              verified: (String, FileStat) -> Void) -> URL? {
        guard let hex = MediaLocatorContentID.hex(contentID) else { return nil }
        let stored = directory.appendingPathComponent(hex)
        if Disk.exists(stored.path) {
            // Last used now: housekeeping removes uploads by this time. A touch that fails
            // only lets housekeeping remove the upload sooner.
            Disk.touch(stored.path)
            return stored
        }
        // Regular files only: a FIFO would block the reader.
        guard let candidate, MediaStore.isInside(candidate, roots), let stat = FileStat.of(candidate) else { return nil }
        if known(candidate, stat) == contentID { return URL(fileURLWithPath: candidate) }
        guard let actual = try? ContentID.of(file: candidate), actual == contentID else { return nil }   // unreadable: not this file
        verified(candidate, stat)
        return URL(fileURLWithPath: candidate)
    }

    /// Whether `contentID` may be found here without hashing anything: its upload is in the
    /// store, or `candidate` is a file under a media root (checked against its hash when read).
    func mayHold(_ contentID: String, candidate: String?) -> Bool {
        guard let hex = MediaLocatorContentID.hex(contentID) else { return false }
        if Disk.exists(directory.appendingPathComponent(hex).path) { return true }
        guard let candidate, MediaStore.isInside(candidate, roots) else { return false }
        return Disk.exists(candidate)
    }

    /// The stat of `path` if its remembered hash is `contentID`: a worker that sees the
    /// same size and time at the same path may read it without hashing.
    func verifiedStat(of path: String, contentID: String, known: (String, FileStat) -> String?) -> FileStat? {
        guard MediaStore.isInside(path, roots), let stat = FileStat.of(path), known(path, stat) == contentID else { return nil }
        return stat
    }
}
