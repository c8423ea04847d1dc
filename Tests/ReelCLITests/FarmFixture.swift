import Crypto
import Foundation
import ReelTestSupport
import Testing

/// A farm of real processes on loopback: a coordinator, workers, and `reel` clients.
/// One test uses it at a time; an async test hands it to a thread (`offThePool`) and
/// awaits that thread before touching it again, so it is never used from two at once.
final class FarmFixture: @unchecked Sendable {
    let dir: URL
    let endpoint: String
    var coordinator: Process?
    /// The running coordinator's process id.
    var coordinatorPID: Int32? { coordinator.map(\.processIdentifier) }
    var workers: [String: Process] = [:]
    let stateDir: URL

    init(_ name: String = #function) throws {
        dir = try TestEnvironment.scratchDirectory(name)
        endpoint = LoopbackPort.endpoint()
        stateDir = dir.appendingPathComponent("state")
    }

    deinit { stopAll() }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func spawn(_ arguments: [String], log: String, environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.reel)
        process.arguments = arguments
        process.currentDirectoryURL = dir
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        FileManager.default.createFile(atPath: path(log), contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path(log)))
        try handle.seekToEnd()
        process.standardError = handle
        process.standardOutput = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    func startCoordinator(_ extra: [String] = []) throws {
        coordinator = try spawn(["coordinator", "--bind", endpoint, "--state-dir", stateDir.path] + extra, log: "coordinator.log")
    }

    func killCoordinator() {
        guard let c = coordinator else { return }
        kill(c.processIdentifier, SIGKILL)
        c.waitUntilExit()
        coordinator = nil
    }

    func startWorker(_ name: String, _ extra: [String] = [], environment: [String: String] = [:]) throws {
        workers[name] = try spawn(["worker", "--connect", endpoint, "--slots", "1", "--cache-dir", path("cache-\(name)")] + extra,
                                  log: "worker-\(name).log", environment: environment)
    }

    func killWorker(_ name: String) {
        guard let w = workers.removeValue(forKey: name) else { return }
        kill(w.processIdentifier, SIGKILL)
        w.waitUntilExit()
    }

    func stopAll() {
        for name in Array(workers.keys) { killWorker(name) }
        killCoordinator()
    }

    func log(_ name: String) -> String { (try? String(contentsOfFile: path(name), encoding: .utf8)) ?? "" }

    /// `reel ARGS --coordinator ENDPOINT` in the fixture's directory.
    @discardableResult
    func reel(_ arguments: [String]) throws -> ProcessResult {
        try TestEnvironment.reel(arguments + ["--coordinator", endpoint], in: dir)
    }

    func status(_ job: String) throws -> [String: Any] {
        let result = try reel(["status", job, "--json"])
        return (try? JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]) ?? [:]
    }

    /// The HTTP API's base URL (`http://127.0.0.1:PORT/v1`) as the coordinator logs it
    /// when it serves `--http 127.0.0.1:0`.
    func apiBase() throws -> String {
        var base: String?
        _ = try waitUntil(30) {
            base = log("coordinator.log").components(separatedBy: "HTTP API on ").dropFirst().first?
                .prefix { !$0.isWhitespace }.description
            return base != nil
        }
        guard let base else { throw Failure("the coordinator did not say where its HTTP API is: \(log("coordinator.log").suffix(500))") }
        return base
    }

    /// Waits until `condition` holds (polling), up to `seconds`.
    func waitUntil(_ seconds: Double = 60, _ condition: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return false
    }

    /// Media and a multi-segment session with short GOPs, so there are many shards.
    func makeSession(seconds: Double = 3) throws {
        for (name, extra) in [("a.mp4", [String]()), ("b.mp4", ["--rotate", "90", "--tone", "660"])] {
            let r = try TestEnvironment.reel(["sample", path(name), "--duration", String(seconds + 1), "--size", "160x96"] + extra)
            guard r.status == 0 else { throw Failure(r.stderr) }
        }
        try TestEnvironment.write("""
        {"video": {"renderSize": [160, 96], "videoSegments": [
          {"source": "a.mp4", "trimDuration": \(seconds)},
          {"source": "b.mp4", "speedMultiplier": 0.5, "trimDuration": \(seconds / 2), "filters": [{"type": "saturation", "normalizedIntensity": 0.5}]},
          {"source": "a.mp4", "speedMultiplier": 2, "trimStartTime": 0.5, "trimDuration": \(seconds)}
        ]}}
        """, to: "s.json", in: dir)
    }

    /// Uploads `makeSession`'s media over the HTTP API at `base` (`…/v1`); returns each
    /// file's content id by name.
    func uploadMedia(to base: String, token: String? = nil) throws -> [String: String] {
        var files: [String: String] = [:]
        for name in ["a.mp4", "b.mp4"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: path(name)))
            let id = "sha256:" + SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            let put = try HTTPExchange.send("PUT", "\(base)/media/\(id)", headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:],
                                            body: data)
            guard [200, 201].contains(put.status) else { throw Failure("upload of \(name): \(put.status) \(put.text)") }
            files[name] = id
        }
        return files
    }

    static let shortGOP = ["--keyframe-interval", "0.5"]

    /// The same session rendered in this process, for byte comparison.
    func reference() throws -> Data {
        let r = try TestEnvironment.reel(["render", "s.json", "-o", "reference.mp4", "--in-process", "--workers", "1"] + Self.shortGOP, in: dir)
        guard r.status == 0 else { throw Failure(r.stderr) }
        return try Data(contentsOf: URL(fileURLWithPath: path("reference.mp4")))
    }

    func submit(_ extra: [String] = []) throws -> String {
        let r = try reel(["submit", "s.json"] + Self.shortGOP + extra)
        guard r.status == 0 else { throw Failure("submit failed: \(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func fetched(_ job: String, _ name: String = "out.mp4") throws -> Data {
        let r = try reel(["fetch", job, "-o", name, "--wait"])
        guard r.status == 0 else { throw Failure("fetch failed: \(r.stderr)\ncoordinator: \(log("coordinator.log").suffix(2000))") }
        return try Data(contentsOf: URL(fileURLWithPath: path(name)))
    }
}
