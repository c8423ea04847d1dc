import Foundation

/// The result of running a command to completion.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stderr: String
    public var stdoutData: Data
    /// Decoded when asked: repairing megabytes of raw frames as UTF-8 took 19 s for 13.8 MB.
    public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }

    public var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// Runs programs as users run them: real processes, captured output, exit status.
public enum ProcessRunner {
    /// Runs `executable` with `arguments`; `input` is written to its stdin.
    @discardableResult
    /// A process still running after `timeout` seconds is killed (a hung test fails, it does not hang CI).
    public static func run(_ executable: String, _ arguments: [String], directory: URL? = nil,
                           environment: [String: String]? = nil, timeout: Double = 300) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let done = killing(process.processIdentifier, after: timeout)
        defer { done.signal() }
        // Drain both pipes concurrently so a chatty child never blocks on a full pipe.
        let errBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errBox.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, stderr: String(decoding: errBox.data, as: UTF8.self), stdoutData: outData)
    }

    /// Kills `pid` and its descendants unless the returned semaphore is signalled within
    /// `timeout` seconds. On a thread of its own (Dispatch's pool can be full of blocked
    /// reads), and with the child's own children: they hold its pipes, and a read would
    /// wait for them for ever.
    static func killing(_ pid: Int32, after timeout: Double) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread {
            guard done.wait(timeout: .now() + timeout) == .timedOut else { return }
            for descendant in descendants(of: pid) { kill(descendant, SIGKILL) }
            kill(pid, SIGKILL)
        }.start()
        return done
    }

    /// Every process below `pid`, from /proc.
    static func descendants(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var parents: [Int32: Int32] = [:]
        for entry in entries {
            guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parents[child] = parent }
        }
        var found: [Int32] = []
        var frontier = [pid]
        while let next = frontier.popLast() {
            let children = parents.filter { $0.value == next }.map(\.key)
            found += children
            frontier += children
        }
        return found
    }

    /// Finds a program on PATH.
    public static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

final class DataBox: @unchecked Sendable {
    // Written by one thread before `group.leave()`, read after `group.wait()`.
    var data = Data()
}
