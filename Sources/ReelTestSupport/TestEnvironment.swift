import Foundation

/// Paths the tests need: the built `reel`, a fresh scratch directory, the repository.
public enum TestEnvironment {
    /// The package root, found from this source file's location.
    public static let packageRoot: URL = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }()

    /// The `reel` built with the tests (`REEL` overrides).
    public static var reel: String {
        if let path = ProcessInfo.processInfo.environment["REEL"] { return path }
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("reel").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/reel").path
    }

    /// A new empty directory under this test process's scratch root.
    public static func scratchDirectory(_ name: String = #function) throws -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let url = scratchRoot.appendingPathComponent("\(safe)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `reelfarm-tests/run-PID` under the temporary directory. The first use removes the
    /// roots of test processes that have ended, so a failed run's files stay for a look
    /// until the next run instead of piling up run after run (a full run leaves gigabytes).
    static let scratchRoot: URL = {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("reelfarm-tests")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        for name in names {
            // Roots of earlier layouts (no `run-` prefix) and of ended processes go.
            let pid = name.hasPrefix("run-") ? Int32(name.dropFirst(4)) : nil
            if let pid, kill(pid, 0) == 0 || errno == EPERM { continue }
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
        return parent.appendingPathComponent("run-\(getpid())")
    }()

    /// Runs `reel` with `arguments` in `directory`.
    @discardableResult
    public static func reel(_ arguments: [String], in directory: URL? = nil) throws -> ProcessResult {
        try ProcessRunner.run(reel, arguments, directory: directory)
    }

    /// Writes `text` to `name` inside `directory` and returns its path.
    @discardableResult
    public static func write(_ text: String, to name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url.path
    }
}
