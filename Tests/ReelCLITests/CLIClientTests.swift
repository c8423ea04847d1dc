import Foundation
import ReelTestSupport
import Testing

/// The CLI as people type it: mistakes answered at once with the right form, waits said
/// out loud, results in a form scripts read.
@Suite struct CLIClientTests {
    @Test func aMistypedCommandOrOptionGetsTheNearestName() throws {
        let command = try TestEnvironment.reel(["rendr", "s.json"])
        #expect(command.status == 2)
        #expect(command.stderr.contains("did you mean 'render'?"), "\(command.stderr)")
        let dir = try Scratch.withClip()
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "clip.mp4"}]}}"#, to: "s.json", in: dir)
        let option = try TestEnvironment.reel(["render", "s.json", "-o", "out.mp4", "--workres", "2"], in: dir)
        #expect(option.status == 2)
        #expect(option.stderr.contains("did you mean '--workers'?"), "\(option.stderr)")
        // One error format everywhere: usage errors as every other.
        for result in [command, option] { #expect(result.stderrLines == result.stderrLines.filter { $0.hasPrefix("reel: error: ") }) }
    }

    @Test func anOutputFolderThatIsNotThereIsRefusedBeforeAnyWork() throws {
        let dir = try Scratch.withClip()
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "clip.mp4"}]}}"#, to: "s.json", in: dir)
        let started = Date()
        let r = try TestEnvironment.reel(["render", "s.json", "-o", "no/such/folder/out.mp4"], in: dir)
        #expect(r.status == 2)
        #expect(r.stderr.contains("no/such/folder") && r.stderr.contains("does not exist"), "\(r.stderr)")
        #expect(r.stderrLines.count == 1 && r.stderr.hasPrefix("reel: error: "), "\(r.stderr)")
        #expect(Date().timeIntervalSince(started) < 10)
    }

    /// A coordinator that is not there: the client says it is waiting, then gives up at
    /// `--timeout` with a clear line.
    @Test func aSilentCoordinatorIsWaitedForOutLoudThenGivenUp() throws {
        let port = LoopbackPort.free()
        let started = Date()
        let r = try TestEnvironment.reel(["status", "--coordinator", "127.0.0.1:\(port)", "--timeout", "3"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("waiting for the coordinator at tcp://127.0.0.1:\(port)"), "\(r.stderr)")
        #expect(r.stderr.contains("within 3 s"), "\(r.stderr)")
        #expect(r.stderrLines.last?.hasPrefix("reel: error: ") == true, "\(r.stderr)")
        #expect(Date().timeIntervalSince(started) < 15)
        let bad = try TestEnvironment.reel(["status", "--coordinator", "http://127.0.0.1:\(port)"])
        #expect(bad.status == 2 && bad.stderr.contains("tcp://"), "\(bad.stderr)")
        #expect(bad.stderr.hasPrefix("reel: error: "), "\(bad.stderr)")
    }

    /// HOST:PORT reaches a coordinator; `watch --json` prints one status a line, the last final.
    @Test func watchPrintsOneJSONStatusALine() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        try farm.startCoordinator()
        try farm.startWorker("a")
        let job = try farm.submit()
        let hostPort = String(farm.endpoint.dropFirst("tcp://".count))
        let r = try TestEnvironment.reel(["watch", job, "--json", "--coordinator", hostPort], in: farm.dir)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(!lines.isEmpty)
        let statuses = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(statuses.count == lines.count)
        #expect(statuses.last?["state"] as? String == "done")
        #expect(statuses.allSatisfy { $0["jobID"] as? String == job })
        // submit and fetch say what they did as JSON too.
        let submitted = try farm.reel(["submit", "s.json", "--json"] + FarmFixture.shortGOP)
        let reply = try #require(try JSONSerialization.jsonObject(with: submitted.stdoutData) as? [String: Any])
        let again = try #require(reply["jobID"] as? String)
        #expect((reply["shards"] as? Int ?? 0) > 0 && reply["reusedShards"] as? Int == reply["shards"] as? Int)   // the same session: all reused
        let fetched = try farm.reel(["fetch", again, "-o", "again.mp4", "--wait", "--json"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let written = try #require(try JSONSerialization.jsonObject(with: fetched.stdoutData) as? [String: Any])
        #expect(written["output"] as? String == "again.mp4" && (written["bytes"] as? Int ?? 0) > 0)
        #expect((written["sidecar"] as? String)?.hasSuffix("again.reel.json") == true)
    }
}
