import Foundation
import ReelTestSupport
import Testing

/// Inputs that would block, and processes that must not outlive their parent.
@Suite(.serialized) struct LifecycleAndInputTests {
    /// A FIFO opened for reading blocks until someone writes: it must be refused unopened.
    @Test func aFIFOAsMediaIsRefusedAtOnce() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let fifo = dir.appendingPathComponent("clip.mp4").path
        #expect(mkfifo(fifo, 0o644) == 0)
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "clip.mp4"}]}}"#, to: "s.json", in: dir)
        for command in [["validate", "s.json"], ["render", "s.json", "-o", "out.mp4"]] {
            let started = Date()
            let result = try ProcessRunner.run(TestEnvironment.reel, command, directory: dir, timeout: 20)
            #expect(result.status == 2)
            #expect(result.stderr.contains("video.videoSegments[0].source: 'clip.mp4' is not a regular file"), "\(result.stderr)")
            #expect(Date().timeIntervalSince(started) < 5)
        }
    }

    /// Processes whose command line holds `--parent-pid PARENT` (read from /proc).
    static func workers(of parent: Int32) throws -> [Int32] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                  let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let arguments = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard let i = arguments.firstIndex(of: "--parent-pid"), i + 1 < arguments.count, arguments[i + 1] == String(parent) else { return nil }
            // A zombie has an empty command line, so it is not counted.
            return pid
        }
    }

    static func waitUntil(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return try condition()
    }

    /// `reel render`'s workers leave when it dies, even by SIGKILL; on SIGTERM it also
    /// removes its scratch directory.
    @Test(arguments: [SIGKILL, SIGTERM])
    func killingReelRenderLeavesNoWorkers(signal: Int32) throws {
        let fx = try RenderFixture("parent-\(signal)")
        try fx.sample("long.mp4", ["--duration", "20", "--size", "640x360", "--no-audio"])
        try fx.session(#"{"video": {"videoSegments": [{"source": "long.mp4"}], "filters": [{"type": "sharpness", "normalizedIntensity": 0.5}]}}"#)
        let render = Process()
        render.executableURL = URL(fileURLWithPath: TestEnvironment.reel)
        // Three workers: the first is a thread of the render, the other two processes.
        render.arguments = ["render", "s.json", "-o", "out.mp4", "--workers", "3"]
        render.currentDirectoryURL = fx.dir
        render.standardOutput = FileHandle.nullDevice
        render.standardError = FileHandle.nullDevice
        // A process killed earlier by SIGKILL keeps its scratch directory, and its pid may come
        // back (pid_max is 32,768 on small machines): only directories new since now count.
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()))
        try render.run()
        let pid = render.processIdentifier
        #expect(try Self.waitUntil(30) { try Self.workers(of: pid).count == 2 }, "the render started its workers")
        let scratch = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("reel-\(pid)-") && !before.contains($0) }
        #expect(scratch.count == 1, "\(scratch)")
        kill(pid, signal)
        render.waitUntilExit()
        #expect(try Self.waitUntil(10) { try Self.workers(of: pid).isEmpty }, "workers outlived their parent")
        #expect(!FileManager.default.fileExists(atPath: fx.path("out.mp4")))
        if signal == SIGTERM {
            #expect(render.terminationStatus == 128 + SIGTERM)
            let left = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
                .filter { $0.hasPrefix("reel-\(pid)-") && !before.contains($0) }
            #expect(left.isEmpty, "scratch directory left behind: \(left)")
        }
    }
}
