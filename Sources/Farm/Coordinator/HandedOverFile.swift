import Foundation
import RenderEngine
import SessionKit

/// A whole upload the HTTP API hands over by path (an `adopt`; docs/protocol.md,
/// "Uploads"). Taken only when it is a regular file, not a link, inside the API's folder of
/// the state directory, so that no peer can point the coordinator at another file it may read.
struct HandedOverFile: Sendable {
    let url: URL

    init(_ path: String, in root: URL) throws {
        let refused = FarmError(.invalidInput, "a handed-over upload must be a file in the coordinator's api-uploads folder")
        guard path.hasPrefix("/"), !path.split(separator: "/").contains(".."), !path.hasSuffix("/") else { throw refused }
        let given = URL(fileURLWithPath: path)
        // Its folder, links resolved, is the API's folder or inside it; the file itself is no link.
        let folder = given.deletingLastPathComponent().resolvingSymlinksInPath().path
        let base = root.resolvingSymlinksInPath().path
        guard folder == base || folder.hasPrefix(base + "/") else { throw refused }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw refused }
        url = URL(fileURLWithPath: folder).appendingPathComponent(given.lastPathComponent)
    }

    /// Its content id and size, read once (on the I/O lane, never the loop).
    func digest() throws -> (contentID: String, size: Int) {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FarmError(.ioFailed, "cannot read the handed-over upload: \(String(cString: strerror(errno)))")
        }
        let (id, size) = try ContentID.hashing(FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
        return (id.description, size)
    }
}
