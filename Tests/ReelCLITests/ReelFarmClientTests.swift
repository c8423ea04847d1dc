import Foundation
import ReelFarmClient
import ReelTestSupport
import SessionKit
import Testing

/// docs/api.md, "Clients": the Swift client library against a real coordinator and worker,
/// through a proxy that drops connections as a flaky network does (Tests/api/cutting-proxy.py):
/// an app exports two clips and gets `reel render`'s bytes; a dropped upload resumes and
/// sends only what the farm lacks; a dropped event stream resumes without repeating an
/// event; a refused session is a typed error with its JSON path; another tenant's job is refused.
@Suite struct ReelFarmClientTests {
    static let alice = "alice-client-token-0123456789abc", bob = "bob-client-token-0123456789abcde"

    /// The farm, its API, and a proxy in front of it with `cuts`; the proxy's state file.
    static func farmBehindProxy(_ name: String = #function, cuts: [String]) throws -> (FarmFixture, api: String, proxied: String, state: String, proxy: Process) {
        let farm = try FarmFixture(name)
        try farm.makeSession(seconds: 2)
        try TestEnvironment.write("\(alice) client alice\n\(bob) client bob\n", to: "tokens", in: farm.dir)
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--api-tokens", "tokens"])
        try farm.startWorker("a", ["--test-shard-delay", "300"])
        let api = try farm.apiBase()
        let port = try #require(URLComponents(string: api)?.port)
        let state = farm.path("proxy.json")
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: try #require(ProcessRunner.which("python3")))
        proxy.arguments = [TestEnvironment.packageRoot.appendingPathComponent("Tests/api/cutting-proxy.py").path, String(port), state] + cuts
        // Not the test's own output: a pipe held open by a child keeps `swift test` waiting.
        FileManager.default.createFile(atPath: farm.path("proxy.log"), contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: farm.path("proxy.log")))
        proxy.standardOutput = log
        proxy.standardError = log
        proxy.standardInput = FileHandle.nullDevice
        try proxy.run()
        var proxyPort: Int?
        _ = try farm.waitUntil(20) {
            proxyPort = Self.proxyState(state)?["port"] as? Int
            return proxyPort != nil
        }
        return (farm, api, "http://127.0.0.1:\(try #require(proxyPort))/v1", state, proxy)
    }

    /// SIGKILL: a child of the test runner may inherit SIGTERM ignored.
    static func stop(_ proxy: Process) {
        kill(proxy.processIdentifier, SIGKILL)
        proxy.waitUntilExit()
    }

    static func proxyState(_ path: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))) as? [String: Any]
    }

    @Test func anAppExportsTwoClipsThroughDroppedConnectionsAndGetsReelRendersBytes() async throws {
        // The 2nd PUT (of 32-KiB parts) is cut after 20,000 bytes.
        let (farm, _, proxied, state, proxy) = try await offThePool { try Self.farmBehindProxy(cuts: ["--cut-put", "2:20000"]) }
        defer { Self.stop(proxy) }
        let reference = try await offThePool { try farm.reference() }
        var client = ReelFarm(api: try #require(URL(string: proxied)), token: Self.alice)
        client.uploadPartBytes = 32 << 10
        let session = try SessionDocument.decode(Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let media = ["a.mp4": URL(fileURLWithPath: farm.path("a.mp4")), "b.mp4": URL(fileURLWithPath: farm.path("b.mp4"))]
        let seen = Statuses()
        let done = try await client.export(session, media: media, settings: ExportSettings(keyframeIntervalSeconds: 0.5)) { seen.add($0) }
        #expect(done.state == .done && done.framesDone == done.totalFrames)
        let output = URL(fileURLWithPath: farm.path("client.mp4"))
        try await client.download(done.jobID, to: output)
        #expect(try Data(contentsOf: output) == reference, "the client's MP4 is not reel render's")

        let counts = try #require(Self.proxyState(state))
        #expect(counts["cuts"] as? [String] == ["put"], "\(counts)")
        // Only the missing bytes again: the files once, plus the 20,000 bytes of the part cut.
        let sizes = try media.values.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: $1.path)[.size] as? Int) ?? 0) }
        #expect(counts["putBodyBytes"] as? Int == sizes + 20_000, "\(counts)")
        // The part after the cut starts where the farm's copy stood (the 2nd part's start).
        let ranges = (counts["putRanges"] as? [Any])?.compactMap { $0 as? String } ?? []
        #expect(ranges.count >= 3 && ranges[1].hasPrefix("bytes 32768-") && ranges[2].hasPrefix("bytes 32768-"), "\(ranges)")
        Self.expectOnlyNewer(seen.all)
    }

    /// Every status newer than the one before, the last one `done`.
    static func expectOnlyNewer(_ statuses: [JobStatus]) {
        let orders: [[Int64]] = statuses.map { [$0.state.isFinal ? 3 : $0.state == .assembling ? 2 : $0.state == .rendering ? 1 : 0, $0.framesDone, Int64($0.shards.done)] }
        #expect(zip(orders, orders.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) }, "repeated or backwards: \(orders)")
        #expect(statuses.last?.state == .done)
    }

    /// The stream drops after its first event while the job is held (its one worker
    /// stopped), so the cut always falls before the job moves: the client opens it again
    /// with that event's id and sees every later status once.
    @Test func aDroppedEventStreamResumesWithoutRepeatingAnEvent() async throws {
        let (farm, api, proxied, state, proxy) = try await offThePool { try Self.farmBehindProxy(cuts: ["--cut-events", "1"]) }
        defer { Self.stop(proxy) }
        let direct = ReelFarm(api: try #require(URL(string: api)), token: Self.alice)
        var files: [String: String] = [:]
        for name in ["a.mp4", "b.mp4"] { files[name] = try await direct.upload(URL(fileURLWithPath: farm.path(name))) }
        let worker = try #require(farm.workers["a"])
        kill(worker.processIdentifier, SIGSTOP)
        defer { kill(worker.processIdentifier, SIGCONT) }
        let session = try SessionDocument.decode(Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let job = try await direct.submit(session, files: files, settings: ExportSettings(keyframeIntervalSeconds: 0.5))
        var statuses: [JobStatus] = []
        for try await status in ReelFarm(api: try #require(URL(string: proxied)), token: Self.alice).events(job.jobID) {
            if statuses.isEmpty { kill(worker.processIdentifier, SIGCONT) }   // the first event is out: let the job go
            statuses.append(status)
        }
        let counts = try #require(Self.proxyState(state))
        #expect(counts["cuts"] as? [String] == ["events"], "\(counts)")
        let ids = (counts["lastEventIDs"] as? [Any]) ?? []
        // The second stream asked for what came after the first status (docs/api.md, "Events": RANK.FRAMES.SHARDS).
        let first = try #require(statuses.first)
        let firstID = "\(first.state == .rendering ? 1 : 0).\(first.framesDone).\(first.shards.done)"
        #expect(ids.count >= 2 && ids[0] is NSNull && ids[1] as? String == firstID, "\(ids) after \(first)")
        #expect(!first.state.isFinal && statuses.count >= 2)
        Self.expectOnlyNewer(statuses)
    }

    @Test func refusalsAreTypedErrors() async throws {
        let (farm, api, _, _, proxy) = try await offThePool { try Self.farmBehindProxy(cuts: []) }
        defer { Self.stop(proxy) }
        let alice = ReelFarm(api: try #require(URL(string: api)), token: Self.alice)
        let bob = ReelFarm(api: try #require(URL(string: api)), token: Self.bob)
        var files: [String: String] = [:]
        for name in ["a.mp4", "b.mp4"] { files[name] = try await alice.upload(URL(fileURLWithPath: farm.path(name))) }
        // The content id is the file's SHA-256, as sha256sum says.
        let sum = try await offThePool { try ProcessRunner.run("/usr/bin/sha256sum", [farm.path("a.mp4")]) }.stdout
            .split(separator: " ").first.map(String.init)
        #expect(files["a.mp4"] == "sha256:" + (sum ?? ""))
        var session = try SessionDocument.decode(Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let valid = session
        session.video?.videoSegments[0].trimDuration = SessionTime(value: 100, timescale: 1)   // past the 3-s clip
        do {
            _ = try await alice.submit(session, files: files)
            Issue.record("a trim past the clip was accepted")
        } catch ReelFarmError.invalid(let problems) {
            #expect(problems.contains { $0.path.hasPrefix("video.videoSegments[0]") }, "\(problems)")
        }
        // Bob has not sent these bytes: to him they are missing.
        do {
            _ = try await bob.submit(valid, files: files)
            Issue.record("another client's media were confirmed")
        } catch ReelFarmError.missingMedia(let ids) {
            #expect(Set(ids) == Set(files.values))
        }
        let job = try await alice.submit(valid, files: files)
        do {
            _ = try await bob.status(job.jobID)
            Issue.record("another tenant read the job")
        } catch let error as ReelFarmError {
            #expect(error.code == .noSuchJob, "another tenant's job is as unknown as one not there: \(error)")
        }
        do {
            for try await _ in bob.events(job.jobID) { Issue.record("another tenant followed the job") }
        } catch let error as ReelFarmError {
            #expect(error.code == .noSuchJob, "another tenant's job is as unknown as one not there: \(error)")
        }
        do {
            _ = try await alice.status("no-such-job")
            Issue.record("a job that is not there")
        } catch let error as ReelFarmError {
            #expect(error.code == .noSuchJob, "\(error)")
        }
        // Pictures of a segment, and a batch of one variant.
        let thumbnail = try await alice.picture(.thumbnail, job: job.jobID, segment: 0, size: "80x48", format: .png)
        #expect(thumbnail.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let frame = try await alice.picture(.frame, job: job.jobID, segment: 1, time: 0.5)
        #expect(frame.starts(with: [0xFF, 0xD8]))
        let batch = try await alice.submitBatch(valid, files: files, variants: [BatchVariant(name: "same", replace: [:])])
        #expect(batch.variants.count == 1 && batch.variants[0].variant == "same")
        #expect(try await alice.batch(batch.batchID).batchID == batch.batchID)
        // A job held queued (its one worker stopped) is cancelled.
        let worker = try #require(farm.workers["a"])
        kill(worker.processIdentifier, SIGSTOP)
        defer { kill(worker.processIdentifier, SIGCONT) }
        let held = try await alice.submit(valid, files: files, settings: ExportSettings(keyframeIntervalSeconds: 0.25))
        let cancelled = try await alice.cancel(held.jobID)
        #expect(cancelled.state == .cancelled)
    }
}

/// Statuses as the progress callback gave them.
final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [JobStatus] = []
    func add(_ status: JobStatus) { lock.withLock { list.append(status) } }
    var all: [JobStatus] { lock.withLock { list } }
}
