import Foundation
import SessionKit
import ReelTestSupport
import Testing
@testable import Farm
import RenderEngine

/// A peer that never said `hello` sends results for another user's running job: chunks
/// with a correct SHA-256 of other content, and failures. The coordinator (a real process)
/// must refuse every one, and the job must come out as a clean render does.
@Suite(.serialized) struct RoguePeerTests {
    final class Processes {
        var running: [Process] = []
        deinit { for p in running where p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }

        func start(_ arguments: [String], log: URL, in dir: URL) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TestEnvironment.reel)
            process.arguments = arguments
            process.currentDirectoryURL = dir
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            running.append(process)
        }
    }

    @Test func forgedChunksAndFailuresFromAStrangerAreRefused() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let endpoint = LoopbackPort.endpoint()
        let sample = try TestEnvironment.reel(["sample", "a.mp4", "--duration", "3", "--size", "160x96"], in: dir)
        #expect(sample.status == 0)
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "a.mp4", "trimDuration": 2.5}]}}"#, to: "s.json", in: dir)
        let gop = ["--keyframe-interval", "0.5"]
        let processes = Processes()
        let coordinatorLog = dir.appendingPathComponent("coordinator.log")
        try processes.start(["coordinator", "--bind", endpoint, "--state-dir", dir.appendingPathComponent("state").path],
                            log: coordinatorLog, in: dir)
        // Slowed down, so the job is still running while the stranger speaks.
        try processes.start(["worker", "--connect", endpoint, "--slots", "1", "--cache-dir", dir.appendingPathComponent("cache").path,
                             "--test-shard-delay", "150"], log: dir.appendingPathComponent("worker.log"), in: dir)
        let submitted = try TestEnvironment.reel(["submit", "s.json", "--coordinator", endpoint] + gop, in: dir)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let job = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let context = try ZMQContext()
        let rogue = try ZMQSocket(context, .dealer)
        try rogue.connect(endpoint)
        defer { rogue.close() }
        let fake = Data(repeating: 7, count: 4096)
        let compressed = Data(try LZ4Frame.compress(fake).bytes)
        var sent = 0
        for shard in 0..<6 {
            for attempt in 0..<3 {
                let chunk = ChunkReady(jobID: job, shard: shard, attempt: attempt, sha256: Digest.sha256(fake), size: fake.count, millis: 1)
                try rogue.send(try WireMessage(.chunk, chunk, payload: [compressed]).frames)
                try rogue.send(try WireMessage(.failed, ShardFailed(jobID: job, shard: shard, attempt: attempt, code: .renderFailed, reason: "forged")).frames)
                sent += 2
            }
        }
        try rogue.send(try WireMessage(.mediaRequest, MediaRequest(contentID: "sha256:" + String(repeating: "0", count: 64),
                                                                   offset: 0, length: 1024)).frames)
        sent += 1
        // Every forged message is refused; the replies beyond the coordinator's per-peer queue
        // (32 messages) to a peer that reads only later are dropped.
        var refusals = 0
        let deadline = Date().addingTimeInterval(5)
        while refusals < sent && Date() < deadline {
            guard try ZMQSocket.poll([rogue], timeoutMillis: 200)[0], let frames = try rogue.receive() else { continue }
            let reply = try WireMessage.parse(frames)
            #expect(reply.type == .refused)
            refusals += 1
        }
        #expect(refusals >= min(sent, 32), "only \(refusals) refusals for \(sent) forged messages")

        let fetched = try TestEnvironment.reel(["fetch", job, "-o", "out.mp4", "--wait", "--coordinator", endpoint], in: dir)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let reference = try TestEnvironment.reel(["render", "s.json", "-o", "reference.mp4", "--in-process", "--workers", "1"] + gop, in: dir)
        #expect(reference.status == 0)
        #expect(try Data(contentsOf: dir.appendingPathComponent("out.mp4")) == Data(contentsOf: dir.appendingPathComponent("reference.mp4")))
        let log = try String(contentsOf: coordinatorLog, encoding: .utf8)
        #expect(log.contains("refused a chunk for shard"), "\(log)")
        // One line per kind of refusal in a burst, not one per message.
        #expect(log.components(separatedBy: "refused a chunk").count - 1 < 5)
    }

    /// Settings from the wire get the command line's checks: a keyframe interval of 0 or a
    /// CRF of 99 is refused, not rendered.
    @Test func encoderSettingsFromTheWireAreChecked() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let endpoint = LoopbackPort.endpoint()
        let processes = Processes()
        try processes.start(["coordinator", "--bind", endpoint, "--state-dir", dir.appendingPathComponent("state").path],
                            log: dir.appendingPathComponent("coordinator.log"), in: dir)
        let context = try ZMQContext()
        let client = try ZMQSocket(context, .dealer)
        try client.connect(endpoint)
        defer { client.close() }
        for (settings, expected) in [(EncoderSettings(crf: 20, preset: "veryfast", keyframeIntervalSeconds: 0), "--keyframe-interval 0.0 s is outside"),
                                     (EncoderSettings(crf: 99, preset: "veryfast", keyframeIntervalSeconds: 2), "--crf 99 is outside")] {
            let submit = Submit(session: #"{"video": {"videoSegments": [{"source": "a.mp4"}]}}"#,
                                files: ["a.mp4": "sha256:" + String(repeating: "1", count: 64)], paths: [:], settings: settings, priority: 0)
            try client.send(try WireMessage(.submit, submit).frames)
            var reply: WireMessage?
            for _ in 0..<100 where reply == nil {
                if try ZMQSocket.poll([client], timeoutMillis: 100)[0], let frames = try client.receive() {
                    reply = try WireMessage.parse(frames)
                }
            }
            let answer = try #require(reply)
            #expect(answer.type == .submitted)
            let submitted = try answer.decode(Submitted.self)
            #expect(submitted.jobID == nil)
            #expect(submitted.problems.contains { $0.path == "settings" && $0.message.contains(expected) }, "\(submitted.problems)")
        }
    }

    /// A peer that floods requests and never reads its replies: the coordinator neither
    /// blocks nor grows, and a job running meanwhile finishes as usual.
    @Test func aPeerThatNeverReadsCannotStallOrGrowTheCoordinator() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let endpoint = LoopbackPort.endpoint()
        #expect(try TestEnvironment.reel(["sample", "a.mp4", "--duration", "3", "--size", "160x96"], in: dir).status == 0)
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "a.mp4", "trimDuration": 2.5}]}}"#, to: "s.json", in: dir)
        let processes = Processes()
        try processes.start(["coordinator", "--bind", endpoint, "--state-dir", dir.appendingPathComponent("state").path],
                            log: dir.appendingPathComponent("coordinator.log"), in: dir)
        let coordinator = try #require(processes.running.first).processIdentifier
        try processes.start(["worker", "--connect", endpoint, "--slots", "1", "--cache-dir", dir.appendingPathComponent("cache").path],
                            log: dir.appendingPathComponent("worker.log"), in: dir)
        let context = try ZMQContext()
        let flooder = try ZMQSocket(context, .dealer)
        try flooder.connect(endpoint)
        defer { flooder.close() }
        let contentID = try ContentID.of(file: dir.appendingPathComponent("a.mp4").path)
        for _ in 0..<3000 {
            try flooder.send(try WireMessage(.mediaRequest, MediaRequest(contentID: contentID, offset: 0, length: 4 << 20)).frames)
            try flooder.send(try WireMessage(.fetch, FetchRequest(jobID: "nothing", offset: 0, length: 4 << 20, part: .output)).frames)
        }
        let started = Date()
        let rendered = try TestEnvironment.reel(["render", "s.json", "-o", "out.mp4", "--in-process"], in: dir)   // the reference
        #expect(rendered.status == 0)
        let submitted = try TestEnvironment.reel(["submit", "s.json", "--coordinator", endpoint], in: dir)
        let job = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let fetched = try TestEnvironment.reel(["fetch", job, "-o", "farm.mp4", "--wait", "--coordinator", endpoint], in: dir)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(Date().timeIntervalSince(started) < 60)
        let rssKB = ProcessMemory.residentKB(of: coordinator) ?? .max
        #expect(rssKB < 200 * 1024, "coordinator RSS \(rssKB) kB")
        // The flooder was cut off (past 200 messages in a turn), or — if its burst was
        // spread thin — the replies beyond its queue were dropped; said once, not 6,000 times.
        let log = try String(contentsOf: dir.appendingPathComponent("coordinator.log"), encoding: .utf8)
        #expect(log.contains("cut off a peer") || log.contains("does not read"), "\(log.suffix(2000))")
        #expect(log.split(separator: "\n").count < 40)
    }

    /// Under CURVE each key has a role: a client key cannot deliver results or join as a
    /// worker; it lists and reads only its own jobs, and cannot cancel or fetch another's;
    /// an admin can.
    @Test func underCurveAClientKeyListsReadsAndManagesOnlyItsOwnJobs() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let endpoint = LoopbackPort.endpoint()
        #expect(try TestEnvironment.reel(["sample", "a.mp4", "--duration", "3", "--size", "160x96"], in: dir).status == 0)
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "a.mp4", "trimDuration": 2.5}]}}"#, to: "s.json", in: dir)
        var keys: [String: CurveKeyPair] = [:]
        for name in ["coordinator", "worker", "alice", "mallory", "boss"] {
            keys[name] = try CurveKeyPair.generate()
            try keys[name]!.write(name: dir.appendingPathComponent(name).path)
        }
        let list = ["worker worker", "alice client", "mallory client", "boss admin"]
            .map { entry in let p = entry.split(separator: " "); return "\(keys[String(p[0])]!.publicKey) \(p[1]) \(p[0])" }
        try TestEnvironment.write(list.joined(separator: "\n") + "\n", to: "authorized", in: dir)
        let processes = Processes()
        let coordinatorLog = dir.appendingPathComponent("coordinator.log")
        try processes.start(["coordinator", "--bind", endpoint, "--state-dir", dir.appendingPathComponent("state").path,
                             "--curve-key", "coordinator.key", "--authorized-keys", "authorized"], log: coordinatorLog, in: dir)
        let server = ["--server-key", "coordinator.pub", "--coordinator", endpoint]
        try processes.start(["worker", "--connect", endpoint, "--slots", "1", "--cache-dir", dir.appendingPathComponent("cache").path,
                             "--test-shard-delay", "150", "--curve-key", "worker.key", "--server-key", "coordinator.pub"],
                            log: dir.appendingPathComponent("worker.log"), in: dir)
        let gop = ["--keyframe-interval", "0.5"]
        let submitted = try TestEnvironment.reel(["submit", "s.json", "--curve-key", "alice.key"] + server + gop, in: dir)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let job = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // Mallory's key is authorized, as a client: her forged chunk and hello are refused.
        let context = try ZMQContext()
        let mallory = try ZMQSocket(context, .dealer)
        try mallory.secure(CurveClient(keys: keys["mallory"]!, serverKey: keys["coordinator"]!.publicKey))
        try mallory.connect(endpoint)
        defer { mallory.close() }
        let fake = Data(repeating: 7, count: 4096)
        let chunk = ChunkReady(jobID: job, shard: 1, attempt: 1, sha256: Digest.sha256(fake), size: fake.count, millis: 1)
        try mallory.send(try WireMessage(.chunk, chunk, payload: [Data(try LZ4Frame.compress(fake).bytes)]).frames)
        try mallory.send(try WireMessage(.hello, Hello(workerID: "m", host: "m", slots: 8, capabilities: [],
                                                       engineVersion: EngineVersion.engine)).frames)
        var refusals: [String] = []
        let deadline = Date().addingTimeInterval(10)
        while refusals.count < 2 && Date() < deadline {
            guard try ZMQSocket.poll([mallory], timeoutMillis: 200)[0], let frames = try mallory.receive() else { continue }
            let reply = try WireMessage.parse(frames)
            #expect(reply.type == .refused)
            let refusal = try reply.decode(FarmError.self)
            #expect(refusal.code == .forbidden)
            refusals.append(refusal.message)
        }
        #expect(refusals == ["a client key may not send chunk", "a client key may not send hello"])

        // Nor may she read, cancel or fetch Alice's job: to her it is as unknown as one
        // that is not there (docs/operations.md, "Tenants").
        let hers = try TestEnvironment.reel(["submit", "s.json", "--curve-key", "mallory.key"] + server + gop, in: dir)
        #expect(hers.status == 0, "\(hers.stderr)")
        let malloryJob = hers.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        func client(_ name: String) throws -> FarmClient {
            try FarmClient(endpoints: [endpoint], curve: CurveClient(keys: keys[name]!, serverKey: keys["coordinator"]!.publicKey))
        }
        let asMallory = try client("mallory")
        #expect(try asMallory.statusReply().jobs.map(\.jobID) == [malloryJob], "her list holds her own job only")
        #expect(try asMallory.statusReply(owner: keys["alice"]!.publicKey).jobs.map(\.jobID) == [malloryJob], "naming another owner changes nothing")
        #expect(try asMallory.status(job).isEmpty, "another tenant's job reads as unknown")
        #expect(throws: FarmError.self) { try asMallory.shards(job) }
        #expect(Set(try client("boss").statusReply().jobs.map(\.jobID)) == [job, malloryJob], "an admin lists every job")
        #expect(try client("alice").statusReply().jobs.map(\.owner) == [keys["alice"]!.publicKey])
        let cancel = try TestEnvironment.reel(["cancel", job, "--curve-key", "mallory.key"] + server, in: dir)
        #expect(cancel.status != 0 && cancel.stderr.contains("no job \(job)"), "\(cancel.stderr)")
        let aliceFetch = try TestEnvironment.reel(["fetch", job, "-o", "alice.mp4", "--wait", "--curve-key", "alice.key"] + server, in: dir)
        #expect(aliceFetch.status == 0, "\(aliceFetch.stderr)")
        let stolen = try TestEnvironment.reel(["fetch", job, "-o", "stolen.mp4", "--curve-key", "mallory.key"] + server, in: dir)
        #expect(stolen.status != 0 && stolen.stderr.contains("no job \(job)"), "\(stolen.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("stolen.mp4").path))
        // An admin may fetch anyone's job; the result is a clean render's.
        let boss = try TestEnvironment.reel(["fetch", job, "-o", "boss.mp4", "--curve-key", "boss.key"] + server, in: dir)
        #expect(boss.status == 0, "\(boss.stderr)")
        let reference = try TestEnvironment.reel(["render", "s.json", "-o", "reference.mp4", "--in-process", "--workers", "1"] + gop, in: dir)
        #expect(reference.status == 0)
        let expected = try Data(contentsOf: dir.appendingPathComponent("reference.mp4"))
        #expect(try Data(contentsOf: dir.appendingPathComponent("alice.mp4")) == expected)
        #expect(try Data(contentsOf: dir.appendingPathComponent("boss.mp4")) == expected)
        #expect(try String(contentsOf: coordinatorLog, encoding: .utf8).contains("refused chunk from client key"))
    }
}
