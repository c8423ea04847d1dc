import Foundation
import ReelTestSupport
import Testing

/// docs/benchmarks.md, "Starting a render": `reel render`'s first worker is a thread of the
/// process, so the job starts rendering as soon as it exists, whether or not the worker
/// processes have joined; the output is the same bytes for 1, 2 and 3 workers, with the
/// processes delayed or not.
@Suite struct EmbeddedFarmStartTests {
    @Test func theFirstShardDoesNotWaitForWorkerProcessesAndTheBytesDoNotDependOnThem() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        func render(_ workers: Int, delayedBy milliseconds: Int? = nil) throws -> (Data, [String: Any]) {
            var environment = ProcessInfo.processInfo.environment
            if let milliseconds { environment["REEL_TEST_WORKER_START_DELAY_MS"] = String(milliseconds) }
            let name = "out-\(workers)-\(milliseconds ?? 0).mp4"
            let run = try ProcessRunner.run(TestEnvironment.reel, ["render", "s.json", "-o", name, "--workers", String(workers), "--json",
                                                                   "--keyframe-interval", "0.5"],
                                            directory: farm.dir, environment: environment, timeout: 120)
            #expect(run.status == 0, "\(run.stderr)")
            let summary = (try? JSONSerialization.jsonObject(with: run.stdoutData) as? [String: Any]) ?? [:]
            return (try Data(contentsOf: URL(fileURLWithPath: farm.path(name))), summary["startup"] as? [String: Any] ?? [:])
        }
        let (one, _) = try render(1)
        // The worker processes start a minute late: the render is done long before they join.
        let (delayed, startup) = try render(3, delayedBy: 60_000)
        let fetched = try #require(startup["fetched"] as? Double)
        let created = try #require(startup["jobCreated"] as? Double)
        let rendering = try #require(startup["firstShardRendering"] as? Double)
        #expect(fetched < 60, "the render waited for its worker processes: \(startup)")
        #expect(created <= rendering && rendering <= fetched, "\(startup)")
        #expect(startup["workerProcesses"] as? Int == 2, "\(startup)")
        let (two, _) = try render(2, delayedBy: 2_000)
        let (three, _) = try render(3)
        #expect(delayed == one && two == one && three == one, "the bytes depend on which workers joined")
    }

    /// The command hashes and probes its media once; the farm's compile is handed both
    /// (`Coordinator.Options.knownMedia`). A file changed after the command read it would
    /// no longer match its stat and be hashed again.
    @Test func theFarmsCompileProbesNothingTheCommandProbed() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        let run = try ProcessRunner.run(TestEnvironment.reel, ["render", "s.json", "-o", "out.mp4", "--workers", "1", "--trace", "trace.jsonl"],
                                        directory: farm.dir, timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOfFile: farm.path("trace.jsonl"), encoding: .utf8).split(separator: "\n")
        let job = try #require(lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "job" })
        #expect(job["probes"] as? Int == 0, "\(job)")
    }

    /// A job of one video shard (and its sound) starts no worker process: it would only
    /// take CPU from the command's own worker while it starts. A second worker thread takes
    /// the sound beside the video (with more than one worker asked for); the bytes are those
    /// of one worker.
    @Test func aRenderOfOneVideoShardStartsNoWorkerProcess() throws {
        let farm = try FarmFixture()
        let made = try TestEnvironment.reel(["sample", farm.path("one.mp4"), "--duration", "1", "--size", "160x96"])
        #expect(made.status == 0, "\(made.stderr)")
        _ = try TestEnvironment.write(#"{"video": {"renderSize": [160, 96], "videoSegments": [{"source": "one.mp4", "trimDuration": 1}]}}"#,
                                      to: "one.json", in: farm.dir)
        let run = try ProcessRunner.run(TestEnvironment.reel, ["render", "one.json", "-o", "one-out.mp4", "--workers", "3", "--json"],
                                        directory: farm.dir, timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: run.stdoutData) as? [String: Any])
        let startup = try #require(summary["startup"] as? [String: Any])
        #expect(startup["workerProcesses"] as? Int == 0, "\(startup)")
        #expect(startup["workerThreads"] as? Int == 2, "\(startup)")
        let alone = try ProcessRunner.run(TestEnvironment.reel, ["render", "one.json", "-o", "one-alone.mp4", "--workers", "1", "--json"],
                                          directory: farm.dir, timeout: 120)
        #expect(alone.status == 0, "\(alone.stderr)")
        let aloneSummary = try #require(try JSONSerialization.jsonObject(with: alone.stdoutData) as? [String: Any])
        #expect((aloneSummary["startup"] as? [String: Any])?["workerThreads"] as? Int == 1, "\(aloneSummary)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: farm.path("one-out.mp4"))) == Data(contentsOf: URL(fileURLWithPath: farm.path("one-alone.mp4"))),
                "the sound rendered beside the video changed the bytes")
    }
}
