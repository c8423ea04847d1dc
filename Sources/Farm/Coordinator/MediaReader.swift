import Foundation
import RenderEngine
import SessionKit
import Synchronization

/// Blocks of media for workers, read on the I/O lane (docs/operations.md, "Media"): a
/// file in place that nobody has hashed yet is hashed there, not on the loop. It has its
/// own connection to the job store for the hashes it remembers.
final class MediaReader: Sendable {
    let catalog: MediaCatalog
    private let store: Mutex<JobStore>

    init(catalog: MediaCatalog, store location: StoreLocation) throws {
        self.catalog = catalog
        store = Mutex(try JobStore(at: location))
    }

    /// A readable local file whose bytes have content id `contentID`; one in place hashed
    /// now is remembered by path, size and time (a failed write only costs that hash again).
    func file(for contentID: String, candidate: String?) -> URL? {
        catalog.file(for: contentID, candidate: candidate, known: { path, stat in
            store.withLock { (try? $0.knownMedia(path: path, size: stat.size, mtime: stat.mtime)) ?? nil }
        }, verified: { path, stat in
            store.withLock { _ = try? $0.rememberMedia(contentID: contentID, path: path, size: stat.size, mtime: stat.mtime) }
        })
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
