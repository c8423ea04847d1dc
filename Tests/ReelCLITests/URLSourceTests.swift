import Crypto
import Foundation
import ReelTestSupport
import Testing

/// Sources by URL against real origins on loopback (docs/operations.md, "Sources by URL"):
/// nginx from the Debian packages as the object store, and an origin written in the test
/// that misbehaves. Every origin listens on 127.0.0.1, which the farm refuses unless
/// allowed by name: each command gets `--allow-url-host 127.0.0.1`.
@Suite(.serialized) struct URLSourceTests {
    static let allow = ["--allow-url-host", "127.0.0.1"]
    static let secret = "s3cr3t-signature"

    /// A 3-s clip with sound (640×360, 30 fps, a keyframe a second) in `dir/www/clip.mp4`,
    /// and two sessions over it: one by file, one by URL (`url`), each of two segments.
    private static func media(in dir: URL) throws {
        let www = dir.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let made = try ProcessRunner.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
                                                             "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "3",
                                                             "-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac",
                                                             www.appendingPathComponent("clip.mp4").path])
        guard made.status == 0 else { throw Failure("ffmpeg: \(made.stderr)") }
    }

    private static func session(_ source: String, named name: String, in dir: URL) throws {
        try TestEnvironment.write("""
        {"video": {"renderSize": [320, 180], "videoSegments": [
          {"source": "\(source)", "trimStartTime": 0.5, "trimDuration": 1.5, "filters": [{"type": "sepiaTone", "normalizedIntensity": 0.6}]},
          {"source": "\(source)", "speedMultiplier": 2}
        ]}}
        """, to: name, in: dir)
    }

    private static func bytes(_ dir: URL, _ name: String) throws -> Data { try Data(contentsOf: dir.appendingPathComponent(name)) }

    @Test(.enabled(if: NginxOrigin.available)) func urlSourcesRenderTheSameBytesAsFilesWithOneOrThreeWorkers() throws {
        let dir = try TestEnvironment.scratchDirectory()
        try Self.media(in: dir)
        let origin = try NginxOrigin(root: dir.appendingPathComponent("www"), scratch: dir)
        try Self.session("www/clip.mp4", named: "files.json", in: dir)
        try Self.session(origin.url("clip.mp4"), named: "urls.json", in: dir)
        let local = try TestEnvironment.reel(["render", "files.json", "-o", "files.mp4", "--workers", "1"], in: dir)
        #expect(local.status == 0, "\(local.stderr)")

        for workers in ["1", "3"] {
            let r = try TestEnvironment.reel(["render", "urls.json", "-o", "urls-\(workers).mp4", "--workers", workers] + Self.allow, in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Self.bytes(dir, "urls-\(workers).mp4") == Self.bytes(dir, "files.mp4"), "\(workers) worker(s)")
            #expect(!r.stderr.contains(Self.secret))
            // The sidecar names the source without its credentials.
            let sidecar = String(decoding: try Self.bytes(dir, "urls-\(workers).reel.json"), as: UTF8.self)
            #expect(!sidecar.contains(Self.secret))
            #expect(sidecar.contains("http://127.0.0.1:\(origin.port)/clip.mp4?…"))
        }
        // Stills read the same pictures by ranges.
        for (session, out) in [("files.json", "files.png"), ("urls.json", "urls.png")] {
            let r = try TestEnvironment.reel(["frame", session, "--segment", "1", "--time", "1.2", "-o", out] + Self.allow, in: dir)
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(try Self.bytes(dir, "urls.png") == Self.bytes(dir, "files.png"))
        // Every read was a byte range: no whole-file download anywhere.
        let requests = origin.requests
        #expect(!requests.isEmpty)
        #expect(requests.allSatisfy { $0.status == 206 && $0.range.hasPrefix("bytes=") }, "\(requests.filter { $0.status != 206 })")

        // Without the host allowed, a loopback origin is refused before any request: exit 2
        // naming the JSON path.
        let before = origin.requests.count
        let refused = try TestEnvironment.reel(["validate", "urls.json"], in: dir)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("video.videoSegments[0].source") && refused.stderr.contains("loopback"))
        #expect(!refused.stderr.contains(Self.secret))
        #expect(origin.requests.count == before)
    }

    /// A `.cube` LUT named by URL is read whole once and renders as the same file does;
    /// `reel submit` uploads it to the coordinator like any file.
    @Test(.enabled(if: NginxOrigin.available)) func aLUTByURLRendersAsTheFileDoes() throws {
        let farm = try FarmFixture()
        try Self.media(in: farm.dir)
        let cube = TestEnvironment.packageRoot.appendingPathComponent("examples/looks/warm.cube")
        try FileManager.default.copyItem(at: cube, to: farm.dir.appendingPathComponent("www/warm.cube"))
        let origin = try NginxOrigin(root: farm.dir.appendingPathComponent("www"), scratch: farm.dir)
        for (name, lut) in [("files.json", "www/warm.cube"), ("s.json", origin.url("warm.cube"))] {
            try TestEnvironment.write("""
            {"video": {"renderSize": [320, 180], "videoSegments": [{"source": "www/clip.mp4", "trimDuration": 1}],
             "primaryFilter": {"type": "lut", "file": "\(lut)", "normalizedIntensity": 80}}}
            """, to: name, in: farm.dir)
        }
        let reference = try TestEnvironment.reel(["render", "files.json", "-o", "files.mp4", "--in-process", "--workers", "1"]
                                                 + FarmFixture.shortGOP, in: farm.dir)
        #expect(reference.status == 0, "\(reference.stderr)")
        let local = try TestEnvironment.reel(["render", "s.json", "-o", "urls.mp4", "--in-process", "--workers", "1"]
                                             + FarmFixture.shortGOP + Self.allow, in: farm.dir)
        #expect(local.status == 0, "\(local.stderr)")
        #expect(try Self.bytes(farm.dir, "urls.mp4") == Self.bytes(farm.dir, "files.mp4"))
        try farm.startCoordinator(Self.allow)
        try farm.startWorker("a", Self.allow)
        #expect(try farm.fetched(try farm.submit(Self.allow)) == Self.bytes(farm.dir, "files.mp4"))
    }

    /// A farm of real processes reading from nginx: the coordinator sends no media at all
    /// (it pins each URL's object; a worker probes it, docs/architecture.md, "Probes by
    /// content id"), the workers read ranges from the origin.
    @Test(.enabled(if: NginxOrigin.available)) func theCoordinatorSendsNoMediaForURLSources() throws {
        let farm = try FarmFixture()
        try Self.media(in: farm.dir)
        let origin = try NginxOrigin(root: farm.dir.appendingPathComponent("www"), scratch: farm.dir)
        try Self.session("www/clip.mp4", named: "files.json", in: farm.dir)
        try Self.session(origin.url("clip.mp4"), named: "s.json", in: farm.dir)
        try farm.startCoordinator(Self.allow + ["--http", "127.0.0.1:0", "--trace", farm.path("trace.jsonl")])
        for name in ["a", "b"] { try farm.startWorker(name, Self.allow) }
        let base = try farm.apiBase()
        #expect(try farm.waitUntil(30) { (try HTTPExchange.send("GET", "\(base)/workers").json as? [Any])?.count == 2 })
        let job = try farm.submit(Self.allow)
        let output = try farm.fetched(job)
        // The object, new to the farm, was probed once, by a worker; the coordinator probed nothing.
        let lines = try String(contentsOfFile: farm.path("trace.jsonl"), encoding: .utf8).split(separator: "\n")
        let created = try #require(lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "job" })
        #expect(created["probesOnWorkers"] as? Int == 1 && created["probes"] as? Int == 0, "\(created)")
        let reference = try TestEnvironment.reel(["render", "files.json", "-o", "reference.mp4", "--in-process", "--workers", "1"]
                                                 + FarmFixture.shortGOP, in: farm.dir)
        #expect(reference.status == 0)
        #expect(output == (try Self.bytes(farm.dir, "reference.mp4")))
        #expect((try farm.status(job)["mediaBytesSent"] as? Int ?? 0) == 0)
        let caches = try ["a", "b"].flatMap { try FileManager.default.contentsOfDirectory(atPath: farm.path("cache-\($0)")) }
        #expect(!caches.contains { $0.contains(".b64k") }, "a worker fetched media blocks from the coordinator")
        for log in ["coordinator.log", "worker-a.log", "worker-b.log"] { #expect(!farm.log(log).contains(Self.secret), "\(log)") }

        // Stills of URL sources come from the farm too: a worker reads the ranges it needs
        // from the origin, the coordinator still sends no media.
        let local = try TestEnvironment.reel(["frame", "files.json", "--segment", "1", "--time", "1.2", "-o", "local.png"], in: farm.dir)
        #expect(local.status == 0, "\(local.stderr)")
        let served = try farm.reel(["frame", "s.json", "--segment", "1", "--time", "1.2", "-o", "farm.png"] + Self.allow)
        #expect(served.status == 0, "\(served.stderr)")
        #expect(try Self.bytes(farm.dir, "farm.png") == Self.bytes(farm.dir, "local.png"))
        let thumbnail = try HTTPExchange.send("GET", "\(try farm.apiBase())/jobs/\(job)/segments/0/thumbnail?time=1&size=160x90")
        #expect(thumbnail.status == 200, "\(thumbnail.text.prefix(300))")
        #expect(thumbnail.body.prefix(2) == Data([0xFF, 0xD8]))
        let cachesAfter = try ["a", "b"].flatMap { try FileManager.default.contentsOfDirectory(atPath: farm.path("cache-\($0)")) }
        #expect(!cachesAfter.contains { $0.contains(".b64k") }, "a worker fetched media blocks from the coordinator for a still")
        #expect(!farm.log("coordinator.log").contains(Self.secret))
    }

    /// The coordinator may read the origin (it pinned the object to plan), its worker may
    /// not: a thumbnail of the job is refused by the worker's URL policy before it sends
    /// anything, and the API answers with the policy's code and status (422
    /// `originRefused`, docs/api.md, "Errors"), not 502 as for a failed render. The
    /// refusal is not tried on another worker: every worker would say the same.
    @Test func aStillOfAURLTheWorkersPolicyRefusesIsThePolicysErrorNotAFailedRender() throws {
        let farm = try FarmFixture()
        try Self.media(in: farm.dir)
        let origin = try MisbehavingOrigin(serving: try Self.bytes(farm.dir, "www/clip.mp4"))
        try Self.session(origin.url(), named: "s.json", in: farm.dir)
        try farm.startCoordinator(Self.allow + ["--http", "127.0.0.1:0"])
        try farm.startWorker("a")   // no --allow-url-host: loopback is refused
        let job = try farm.submit(Self.allow)
        let asked = origin.requestCount
        let thumbnail = try HTTPExchange.send("GET", "\(try farm.apiBase())/jobs/\(job)/segments/0/thumbnail?time=1&size=160x90")
        #expect(thumbnail.status == 422, "\(thumbnail.status): \(thumbnail.text.prefix(300))")
        let error = (thumbnail.json as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "originRefused", "\(thumbnail.text.prefix(300))")
        let message = error?["message"] as? String ?? ""
        #expect(message.contains("loopback") && !message.contains("--allow"), "\(thumbnail.text.prefix(300))")
        #expect(!thumbnail.text.contains("hush-hush"))
        // The worker refused by address: nothing more reached the origin for the picture.
        #expect(origin.requestCount == asked)
        #expect(!farm.log("coordinator.log").contains("trying the next worker"))
    }

    @Test func anOriginThatFailsForAWhileIsRetried() throws {
        let dir = try TestEnvironment.scratchDirectory()
        try Self.media(in: dir)
        let origin = try MisbehavingOrigin(serving: try Self.bytes(dir, "www/clip.mp4"))
        try Self.session("www/clip.mp4", named: "files.json", in: dir)
        try Self.session(origin.url(), named: "urls.json", in: dir)
        #expect(try TestEnvironment.reel(["render", "files.json", "-o", "files.mp4", "--in-process", "--workers", "1"], in: dir).status == 0)

        origin.behave(.unavailable(2))   // the first two requests: 503
        let flaky = try TestEnvironment.reel(["render", "urls.json", "-o", "flaky.mp4", "--in-process", "--workers", "1"] + Self.allow, in: dir)
        #expect(flaky.status == 0, "\(flaky.stderr)")
        #expect(try Self.bytes(dir, "flaky.mp4") == Self.bytes(dir, "files.mp4"))

        origin.behave(.dropMidBody(3))   // three ranged answers cut off halfway, the connection closed
        let dropped = try TestEnvironment.reel(["render", "urls.json", "-o", "dropped.mp4", "--in-process", "--workers", "1"] + Self.allow, in: dir)
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(try Self.bytes(dir, "dropped.mp4") == Self.bytes(dir, "files.mp4"))

        origin.behave(.unavailable(1000))   // retries are bounded: the render fails, nothing is written
        let down = try TestEnvironment.reel(["render", "urls.json", "-o", "down.mp4", "--in-process"] + Self.allow, in: dir)
        #expect(down.status == 2)
        #expect(down.stderr.contains("503") && down.stderr.contains("4 attempts"), "\(down.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("down.mp4").path))
        #expect(!down.stderr.contains("hush-hush"))
    }

    @Test func refusalsNameTheJSONPathAndWhatTheOriginSaid() throws {
        let dir = try TestEnvironment.scratchDirectory()
        try Self.media(in: dir)
        let origin = try MisbehavingOrigin(serving: try Self.bytes(dir, "www/clip.mp4"))
        try Self.session(origin.url(), named: "urls.json", in: dir)
        let cases: [(MisbehavingOrigin.Behaviour, String)] = [
            (.html, "text/html"), (.status(403), "403 Forbidden"), (.status(404), "404 Not Found"), (.status(410), "410 Gone"),
            (.redirect("http://169.254.169.254/latest/meta-data/"), "not allowed"),
        ]
        for (behaviour, expected) in cases {
            origin.behave(behaviour)
            let r = try TestEnvironment.reel(["validate", "urls.json"] + Self.allow, in: dir)
            #expect(r.status == 2, "\(behaviour)")
            #expect(r.stderr.contains("video.videoSegments[0].source") && r.stderr.contains(expected), "\(behaviour): \(r.stderr)")
            #expect(!r.stderr.contains("hush-hush"))
        }
        // An origin that never answers, and one that trickles a byte every 0.8 s (which no
        // stall time-out catches): a clear message once --url-timeout has passed, for the
        // read as a whole, its tries included (libcurl's own limit is 300 s a try).
        for (behaviour, seconds) in [(MisbehavingOrigin.Behaviour.silent, 1), (.trickle, 2)] {
            origin.behave(behaviour)
            let started = Date()
            let slow = try TestEnvironment.reel(["validate", "urls.json", "--url-timeout", "\(seconds)"] + Self.allow, in: dir)
            #expect(slow.status == 2)
            #expect(slow.stderr.contains("did not answer the read within \(seconds) s"), "\(behaviour): \(slow.stderr)")
            #expect(Date().timeIntervalSince(started) < Double(seconds) + 8, "\(behaviour)")
        }
    }

    /// Submissions are compiled by a small pool, one client at a time each and clients in
    /// turn (docs/operations.md, "Limits"): while one client's submission waits on an origin
    /// that trickles, another client's is compiled and answered. With one thread it waited
    /// behind for the whole `--url-timeout`.
    @Test func aSlowOriginDelaysOnlyItsOwnClientsSubmission() throws {
        let farm = try FarmFixture()
        try Self.media(in: farm.dir)
        let clip = try Self.bytes(farm.dir, "www/clip.mp4")
        let slow = try MisbehavingOrigin(serving: clip), healthy = try MisbehavingOrigin(serving: clip)
        slow.behave(.trickle)
        try farm.startCoordinator(Self.allow + ["--url-timeout", "15", "--http", "127.0.0.1:0"])
        let api = try farm.apiBase()
        @Sendable func post(_ url: String) throws -> HTTPExchange {
            let session = #"{"video": {"videoSegments": [{"source": "\#(url)"}]}}"#
            let body = #"{"session": \#(session), "files": {}}"#
            return try HTTPExchange.send("POST", "\(api)/jobs", headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
        let slowAnswered = DispatchSemaphore(value: 0)
        Thread {
            _ = try? post(slow.url())
            slowAnswered.signal()
        }.start()
        #expect(try farm.waitUntil(10) { slow.requestCount > 0 }, "the slow submission never reached its origin")
        let started = Date()
        let quick = try post(healthy.url())
        #expect(quick.status == 201, "\(quick.status): \(quick.text.prefix(300))")
        #expect(Date().timeIntervalSince(started) < 8, "the other client waited \(Date().timeIntervalSince(started)) s")
        #expect(slowAnswered.wait(timeout: .now() + 30) == .success, "the slow submission was never answered")
    }

    /// The object is replaced after the job pinned it: the job fails at once naming the
    /// JSON path (never a mix of two versions), and nothing is published.
    @Test func anObjectThatChangesDuringTheJobFailsIt() throws {
        let farm = try FarmFixture()
        try Self.media(in: farm.dir)
        let original = try Self.bytes(farm.dir, "www/clip.mp4")
        let origin = try MisbehavingOrigin(serving: original)
        try Self.session(origin.url(), named: "s.json", in: farm.dir)
        try farm.startCoordinator(Self.allow)
        let job = try farm.submit(Self.allow)   // pinned by the coordinator; no worker yet
        var changed = original
        changed[changed.count / 2] ^= 0xFF
        origin.replace(with: changed)
        try farm.startWorker("a", Self.allow)
        #expect(try farm.waitUntil(60) { try farm.status(job)["state"] as? String == "failed" })
        let failure = try farm.status(job)["error"] as? [String: Any]
        let error = failure?["message"] as? String ?? ""
        #expect(failure?["code"] as? String == "mediaChanged", "\(failure ?? [:])")
        #expect(error.contains("video.videoSegments[") && error.contains("changed"), "\(error)")
        #expect(!error.contains("hush-hush"))
        #expect(origin.conditionalRefusals > 0)
        let fetch = try farm.reel(["fetch", job, "-o", "out.mp4"])
        #expect(fetch.status != 0)
        #expect(!FileManager.default.fileExists(atPath: farm.path("out.mp4")))
    }

    /// Output to a URL: the coordinator PUTs the sidecar, then the MP4, with Content-MD5;
    /// the job is done only once they arrived, and its status says where (redacted) with
    /// the MP4's size and SHA-256. A receiver that refuses fails the job, and nothing stays
    /// to fetch.
    @Test func theResultIsSentToAPresignedURL() throws {
        let farm = try FarmFixture()
        try Self.media(in: farm.dir)
        try Self.session("www/clip.mp4", named: "s.json", in: farm.dir)
        let receiver = try MisbehavingOrigin(serving: Data("unused".utf8))
        try farm.startCoordinator(Self.allow)
        try farm.startWorker("a")
        receiver.behave(.unavailable(1))   // the first PUT is refused with 503, and tried again
        let job = try farm.submit(["--output-url", receiver.url("out.mp4", query: "sig=put-secret"),
                                   "--sidecar-url", receiver.url("out.reel.json", query: "sig=put-secret")])
        #expect(try farm.waitUntil(60) { try farm.status(job)["state"] as? String == "done" })
        let sent = try #require(receiver.received("/out.mp4"))
        #expect(sent.md5Matched)
        #expect(sent.body == (try farm.fetched(job)))
        let sidecar = try #require(receiver.received("/out.reel.json"))
        #expect(sidecar.md5Matched)
        #expect((try JSONSerialization.jsonObject(with: sidecar.body) as? [String: Any])?["session"] != nil)
        let published = try #require(try farm.status(job)["published"] as? [String: Any])
        #expect(published["url"] as? String == "http://127.0.0.1:\(receiver.port)/out.mp4?…")
        #expect(published["bytes"] as? Int == sent.body.count)
        #expect(published["sha256"] as? String == SHA256.hash(data: sent.body).map { String(format: "%02x", $0) }.joined())
        #expect(!farm.log("coordinator.log").contains("put-secret"))

        receiver.behave(.status(403))
        let refused = try farm.submit(["--output-url", receiver.url("refused.mp4")])
        #expect(try farm.waitUntil(60) { try farm.status(refused)["state"] as? String == "failed" })
        let failure = try farm.status(refused)["error"] as? [String: Any]
        let error = failure?["message"] as? String ?? ""
        #expect(failure?["code"] as? String == "originRefused", "\(failure ?? [:])")
        #expect(error.contains("403") && error.contains("refused.mp4?…"), "\(error)")
        #expect(receiver.received("/refused.mp4") == nil)
        #expect(try farm.reel(["fetch", refused, "-o", "refused.mp4"]).status != 0)

        // A destination the policy refuses is refused at submission, naming the field.
        let inward = try farm.reel(["submit", "s.json", "--output-url", "http://169.254.169.254/put"] + FarmFixture.shortGOP)
        #expect(inward.status == 2)
        #expect(inward.stderr.contains("output.url") && inward.stderr.contains("not allowed"), "\(inward.stderr)")
    }
}
