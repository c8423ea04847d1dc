import Crypto
import Foundation
import RenderEngine
import SessionKit
import Synchronization

/// Uploads arriving block by block (docs/protocol.md, "Uploads"), on the I/O lane: each
/// block is appended to `media/<hex>.part` and hashed as it comes, so when the last one is
/// in, the content id is checked without reading the file again, and the file is renamed
/// into place. Blocks of one upload come in order on one lane thread; different uploads
/// may be received at once.
final class UploadReceiver: Sendable {
    let directory: URL
    private struct Open: @unchecked Sendable {   // its handle is used by one lane thread at a time
        var handle: FileHandle
        var hasher = SHA256()
        var received = 0
    }
    private let open = Mutex<[String: Open]>([:])

    init(directory: URL) { self.directory = directory }

    /// Whether an upload of this hex is being received (housekeeping leaves its partial file).
    func isOpen(_ hex: String) -> Bool { open.withLock { $0.keys.contains { $0.hasPrefix(hex) } } }

    /// Appends a block; returns the bytes received and whether the file is complete and
    /// verified. `uploader`: a client that must send the bytes even of a stored file, to show
    /// it holds them (its own partial file, checked, then dropped); nil for one that need not.
    func receive(_ upload: Upload, data: Data, uploader: String? = nil) throws -> Uploaded {
        guard let hex = MediaLocatorContentID.hex(upload.contentID) else {
            throw FarmError(.invalidInput, "'\(upload.contentID)' is not a content id")
        }
        let final = directory.appendingPathComponent(hex)
        let stored = FileManager.default.fileExists(atPath: final.path)
        if stored, uploader == nil { return Uploaded(contentID: upload.contentID, received: upload.total, complete: true, wasStored: true) }
        let key = stored ? hex + "." + Self.tag(uploader ?? "") : hex
        let partial = directory.appendingPathComponent(key + ".part")
        var current: Open
        if upload.offset == 0 {
            try? open.withLock { $0.removeValue(forKey: key) }?.handle.close()   // a restarted upload: read-only state
            _ = FileManager.default.createFile(atPath: partial.path, contents: nil)
            current = Open(handle: try FileHandle(forWritingTo: partial))
        } else {
            guard let taken = open.withLock({ $0.removeValue(forKey: key) }) else {
                throw FarmError(.invalidInput, "upload of \(upload.contentID) did not start at offset 0")
            }
            current = taken
        }
        guard current.received == upload.offset else {
            let expected = current.received
            open.withLock { $0[key] = current }
            throw FarmError(.invalidInput, "upload block at \(upload.offset), expected \(expected)")
        }
        do {
            try current.handle.write(contentsOf: data)
        } catch {
            try? current.handle.close()   // the upload is over: the client starts again at 0
            throw FarmError(.ioFailed, "cannot store the upload of \(upload.contentID): \(FileErrorText.describe(error))")
        }
        current.hasher.update(data: data)
        current.received += data.count
        guard current.received >= upload.total else {
            let received = current.received
            open.withLock { $0[key] = current }
            return Uploaded(contentID: upload.contentID, received: received, complete: false)
        }
        try current.handle.close()
        guard ContentID(hex: Digest.hex(current.hasher.finalize()))?.description == upload.contentID else {
            try? FileManager.default.removeItem(at: partial)
            throw FarmError(.invalidInput, "upload of \(upload.contentID) does not match its content id")
        }
        if stored {
            try? FileManager.default.removeItem(at: partial)   // the bytes were shown; the store keeps its copy
        } else {
            try FileManager.default.moveItem(at: partial, to: final)
        }
        return Uploaded(contentID: upload.contentID, received: current.received, complete: true, wasStored: stored)
    }

    /// Takes a whole file the HTTP API handed over by path: hashes it once, and moves it
    /// into the media (a rename: its bytes are not written again), or drops it when the
    /// media have it already. A file whose bytes are not the content id is dropped.
    func adopt(_ file: HandedOverFile, contentID: String, hex: String) throws -> Uploaded {
        let final = directory.appendingPathComponent(hex)
        let (digest, size) = try file.digest()
        guard digest == contentID else {
            try? FileManager.default.removeItem(at: file.url)   // the API answers 422; the client starts again at 0
            throw FarmError(.invalidInput, "the \(size) bytes uploaded hash to \(digest), not \(contentID)")
        }
        let stored = FileManager.default.fileExists(atPath: final.path)
        do {
            if stored {
                try FileManager.default.removeItem(at: file.url)   // the bytes were shown; the store keeps its copy
            } else {
                try FileManager.default.moveItem(at: file.url, to: final)
            }
        } catch {
            throw FarmError(.ioFailed, "cannot store the upload of \(contentID): \(FileErrorText.describe(error))")
        }
        return Uploaded(contentID: contentID, received: size, complete: true, wasStored: stored)
    }

    /// A short name for an uploader in a partial file's name.
    static func tag(_ uploader: String) -> String {
        SHA256.hash(data: Data(uploader.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
