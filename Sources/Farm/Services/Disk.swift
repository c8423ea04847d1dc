import Foundation

/// The coordinator's file-system calls, each of which may wait on a disk (a `stat` behind
/// gigabytes of writes waited 10 ms and more on this machine): every one says so to
/// `LoopGuard`, so a debug build stops if the loop makes it (docs/architecture.md, "The
/// loop does not block"). Lanes, compile threads and start-up call them freely.
enum Disk {
    static func exists(_ path: String) -> Bool {
        LoopGuard.assertMayBlock("looking for \(path)")
        return FileManager.default.fileExists(atPath: path)
    }

    static func createDirectory(_ url: URL) throws {
        LoopGuard.assertMayBlock("making \(url.path)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Makes the directory unless it is there.
    static func ensureDirectory(_ url: URL) throws {
        if !exists(url.path) { try createDirectory(url) }
    }

    static func remove(_ path: String) throws {
        LoopGuard.assertMayBlock("removing \(path)")
        try FileManager.default.removeItem(atPath: path)
    }

    /// Removes a file or a tree if it is there; whether it was.
    @discardableResult
    static func removeIfPresent(_ path: String) throws -> Bool {
        guard exists(path) else { return false }
        try remove(path)
        return true
    }

    /// `unlink(2)`, for a file that may be missing (its error is not worth knowing).
    static func unlinkIfPresent(_ path: String) {
        LoopGuard.assertMayBlock("unlinking \(path)")
        unlink(path)
    }

    static func list(_ path: String) throws -> [String] {
        LoopGuard.assertMayBlock("listing \(path)")
        return try FileManager.default.contentsOfDirectory(atPath: path)
    }

    /// A hard link; the error names both paths.
    static func link(_ source: String, to target: String) throws {
        LoopGuard.assertMayBlock("linking \(target)")
        guard Foundation.link(source, target) == 0 else {
            throw FarmError(.ioFailed, "cannot link \(source) to \(target): \(String(cString: strerror(errno)))")
        }
    }

    static func move(_ source: URL, to target: URL) throws {
        LoopGuard.assertMayBlock("moving \(source.path)")
        try FileManager.default.moveItem(at: source, to: target)
    }

    /// Marks a file used now (its modification time), for a sweep that removes the unused.
    static func touch(_ path: String) {
        LoopGuard.assertMayBlock("touching \(path)")
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)   // a hint for the sweep only
    }

    /// `lstat(2)`: nil when the path is not there.
    static func status(_ path: String) -> stat? {
        LoopGuard.assertMayBlock("stat of \(path)")
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    static func size(of path: String) -> Int64? {
        status(path).map { Int64($0.st_size) }
    }

    static func contents(_ path: String) -> Data? {
        LoopGuard.assertMayBlock("reading \(path)")
        return FileManager.default.contents(atPath: path)
    }
}
