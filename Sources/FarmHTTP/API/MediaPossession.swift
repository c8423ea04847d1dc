import Crypto
import Foundation

/// Which API client has shown it holds which media (docs/api.md, "Uploading media"): the
/// coordinator keeps one copy of each file, by content id, whoever sent it, but a client
/// learns that a file is there — `HEAD`, a `PUT` answered "already there", a job that
/// names it — only after sending its bytes once itself. So a content id, which may leak
/// or be guessed from a known file, confirms nothing and renders nothing of another
/// tenant's. A marker file per client and content id under the uploads directory, so the
/// record survives restarts; an admin (and the token-less loopback API) holds everything.
struct MediaPossession: Sendable {
    let directory: URL

    /// A client's directory: its name hashed (a token's holder name is not a path).
    private func folder(of owner: String) -> URL {
        let digest = SHA256.hash(data: Data(owner.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return directory.appendingPathComponent("owners").appendingPathComponent(digest)
    }

    private func marker(_ contentID: String, of owner: String) -> URL {
        folder(of: owner).appendingPathComponent(String(contentID.dropFirst("sha256:".count)))
    }

    func holds(_ caller: Caller, _ contentID: String) -> Bool {
        guard let owner = caller.owner, !caller.isAdmin else { return true }
        return FileManager.default.fileExists(atPath: marker(contentID, of: owner).path)
    }

    /// Records that `caller` sent the bytes of `contentID`.
    func record(_ caller: Caller, _ contentID: String) throws {
        guard let owner = caller.owner, !caller.isAdmin else { return }
        try FileManager.default.createDirectory(at: folder(of: owner), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: marker(contentID, of: owner).path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// Where `caller`'s unfinished upload of `contentID` waits: one per client, so one
    /// client's progress (`Upload-Offset`) says nothing of another's.
    func partial(_ caller: Caller, _ contentID: String) -> URL {
        let hex = String(contentID.dropFirst("sha256:".count))
        guard let owner = caller.owner, !caller.isAdmin else { return directory.appendingPathComponent(hex + ".part") }
        return folder(of: owner).appendingPathComponent(hex + ".part")
    }
}
