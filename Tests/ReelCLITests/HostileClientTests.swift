import Foundation
import ReelTestSupport
import Testing

/// docs/operations.md, "Limits": what one client's submission may cost the coordinator.
/// Loopback only, bounded in count and time.
@Suite(.serialized) struct HostileClientTests {
    /// 100,000 one-frame segments (1.9 MB of JSON, under the API's 4 MiB): refused with the
    /// limit's numbers, off the coordinator's loop — its memory comes back to where it was,
    /// its worker never finds it silent, and the next job renders as usual.
    @Test func aHundredThousandSegmentSessionIsRefusedWithoutStallingTheLoop() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        try farm.startCoordinator(["--http", "127.0.0.1:0"])
        try farm.startWorker("a")
        let base = try farm.apiBase()
        let files = try farm.uploadMedia(to: base)
        let coordinator = try #require(farm.coordinatorPID)
        let before = try #require(ProcessMemory.residentKB(of: coordinator))

        let segments = Array(repeating: #"{"source":"a.mp4"}"#, count: 100_000).joined(separator: ",")
        let body = #"{"session":{"video":{"videoSegments":[\#(segments)]}},"files":{"a.mp4":"\#(files["a.mp4"] ?? "")"}}"#
        let started = Date()
        let reply = try HTTPExchange.send("POST", "\(base)/jobs", body: Data(body.utf8))
        #expect(reply.status == 422, "\(reply.text.prefix(300))")
        let problems = ((reply.json as? [String: Any])?["problems"] as? [[String: String]]) ?? []
        #expect(problems.contains { $0["path"] == "video.videoSegments" && ($0["message"] ?? "").contains("100000 segments")
                                    && ($0["message"] ?? "").contains("at most 1000") }, "\(problems)")
        #expect(Date().timeIntervalSince(started) < 30)
        // Its decoding was transient (it peaks near 370 MB): the memory comes back to within
        // 100 MB once it is refused, at the latest after the next sweep (every 10 s) trims
        // the heap (docs/operations.md, "Limits": 3–68 MB measured).
        var after = before
        #expect(try farm.waitUntil(15) {
            after = try #require(ProcessMemory.residentKB(of: coordinator))
            return after - before < 100_000
        }, "the coordinator grew from \(before) to \(after) KB")

        // The farm goes on: an ordinary job renders, nobody saw the coordinator silent.
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let created = try HTTPExchange.send("POST", "\(base)/jobs", body: try JSONSerialization.data(withJSONObject: ["session": session, "files": files]))
        #expect(created.status == 201, "\(created.text)")
        let job = try #require(((created.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String)
        let events = try HTTPExchange.send("GET", "\(base)/jobs/\(job)/events")
        #expect(events.text.contains("event: done"), "\(events.text.suffix(300))")
        #expect(!farm.log("worker-a.log").contains("coordinator silent"), "\(farm.log("worker-a.log").suffix(500))")
    }

    /// The largest session the farm takes (1,000 segments), accepted and then cancelled:
    /// the coordinator's memory comes back to within 50 MB of where it was, and the loop
    /// kept beating for its worker.
    @Test func aCancelledThousandSegmentJobGivesItsMemoryBack() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        try farm.startCoordinator(["--http", "127.0.0.1:0"])
        try farm.startWorker("a", ["--test-shard-delay", "200"])
        let base = try farm.apiBase()
        let files = try farm.uploadMedia(to: base)
        let coordinator = try #require(farm.coordinatorPID)
        let before = try #require(ProcessMemory.residentKB(of: coordinator))
        let segments = Array(repeating: #"{"source":"a.mp4","trimDuration":0.1}"#, count: 1000).joined(separator: ",")
        let body = #"{"session":{"video":{"videoSegments":[\#(segments)]}},"files":{"a.mp4":"\#(files["a.mp4"] ?? "")"}}"#
        let created = try HTTPExchange.send("POST", "\(base)/jobs", body: Data(body.utf8))
        #expect(created.status == 201, "\(created.text.prefix(300))")
        let job = try #require(((created.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String)
        #expect(try HTTPExchange.send("DELETE", "\(base)/jobs/\(job)").status == 200)
        #expect(try farm.waitUntil(30) { try farm.status(job)["state"] as? String == "cancelled" })
        let after = try #require(ProcessMemory.residentKB(of: coordinator))
        #expect(after - before < 50_000, "the coordinator grew from \(before) to \(after) KB")
        #expect(!farm.log("worker-a.log").contains("coordinator silent"), "\(farm.log("worker-a.log").suffix(500))")
    }

    /// A session within the segment limit whose plan is too many shards is refused too,
    /// with both numbers, before anything is stored.
    @Test func aJobOfTooManyShardsIsRefusedWithItsNumbers() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        try farm.startCoordinator(["--max-shards", "2"])
        let refused = try farm.reel(["submit", "s.json"])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("shards; this farm takes at most 2 in one job (--max-shards)"), "\(refused.stderr)")
        let jobs = try JSONSerialization.jsonObject(with: farm.reel(["status", "--json"]).stdoutData) as? [Any]
        #expect(jobs?.isEmpty == true, "nothing was stored")
    }

    /// Connections past `--max-connections` get 503 with Retry-After and are closed, while
    /// the ones held stay served; once clients leave, new ones are taken again. Idle
    /// keep-alive connections hold their slots, as a slow client's would.
    @Test func connectionsPastTheBudgetAre503AndTheFarmGoesOn() throws {
        let farm = try FarmFixture()
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--max-connections", "40"])
        let base = try farm.apiBase()
        let port = try #require(URLComponents(string: base)?.port)
        var held = try (0..<40).map { _ in try OpenHTTPStream(port: port, path: "/v1/workers") }
        for connection in held { #expect(connection.read(until: "\r\n\r\n") && connection.text.hasPrefix("HTTP/1.1 200"), "\(connection.text.prefix(200))") }
        let refused = try (0..<20).map { _ in try OpenHTTPStream(port: port, path: "/v1/workers") }
        for connection in refused {
            #expect(connection.read(until: "}}") && connection.text.hasPrefix("HTTP/1.1 503"), "\(connection.text.prefix(200))")
            #expect(connection.text.lowercased().contains("retry-after: 5"))
            #expect(Self.refusalCode(connection.text) == "unavailable", "\(connection.text)")
        }
        held = []
        #expect(try farm.waitUntil(10) { (try? HTTPExchange.send("GET", "\(base)/workers").status) == 200 })
        #expect(farm.coordinator?.isRunning == true)
        #expect(held.isEmpty)
    }

    /// A token holder's pictures being made at once are bounded (8): with no worker to make
    /// them, 8 requests wait, and 4 more of the same client are 429 with `Retry-After` at once.
    /// 200 uncached 4096² frames of one client used to make every other client wait. A
    /// signed URL counts as the token that signed it: a flood of them is held to the same 8.
    @Test func aClientsPicturesBeingMadeAreBoundedBy429EvenBySignedURLs() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        let token = "alice-token-0123456789abcdefghij"
        try TestEnvironment.write("\(token) client alice\n", to: "tokens", in: farm.dir)
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--api-tokens", "tokens"])
        let base = try farm.apiBase()
        let files = try farm.uploadMedia(to: base, token: token)
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let created = try HTTPExchange.send("POST", "\(base)/jobs", headers: ["Authorization": "Bearer \(token)"],
                                            body: try JSONSerialization.data(withJSONObject: ["session": session, "files": files]))
        let job = try #require(((created.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String, "\(created.text)")
        let port = try #require(URLComponents(string: base)?.port)
        // A URL Alice signs for a browser, made while her gateway calls are free.
        let signing = try HTTPExchange.send("POST", "\(base)/jobs/\(job)/segments/0/frame-url", headers: ["Authorization": "Bearer \(token)"],
                                            body: Data(#"{"time": 0}"#.utf8))
        // 0 is a time (bridged JSON once read it as `false`, and refused it); `true` is not.
        let signed = try #require((signing.json as? [String: Any])?["url"] as? String, "\(signing.text)")
        let boolean = try HTTPExchange.send("POST", "\(base)/jobs/\(job)/segments/0/frame-url", headers: ["Authorization": "Bearer \(token)"],
                                            body: Data(#"{"time": true}"#.utf8))
        #expect(boolean.status == 422 && boolean.text.contains("must be a number"), "\(boolean.status) \(boolean.text)")
        // Raw connections: an HTTP client library would hold most of them back itself.
        let asked = try (0..<12).map { index in
            try OpenHTTPStream(port: port, path: "/v1/jobs/\(job)/segments/0/frame?time=\(0.05 * Double(index))",
                               headers: ["Authorization": "Bearer \(token)"])
        }
        // Only the refused are answered: no worker makes the others' pictures (they wait 30 s).
        var answered = Set<Int>()
        // The others wait 30 s for a worker; the refusals come at once (they took 6.8 s when
        // the gateway's blocking calls ran on Dispatch's pool, which adds threads slowly).
        let until = Date().addingTimeInterval(5)
        while answered.count < 4, Date() < until {
            for (index, stream) in asked.enumerated() where !answered.contains(index) && stream.read(until: "\r\n\r\n", seconds: 0.1) {
                answered.insert(index)
            }
        }
        let back = answered.sorted().map { asked[$0] }
        #expect(back.count == 4, "\(back.map { $0.text.prefix(40) })")
        #expect(back.allSatisfy { $0.text.hasPrefix("HTTP/1.1 429") && $0.text.lowercased().contains("retry-after: 1") },
                "\(back.map { $0.text.prefix(200) })")
        #expect(back.allSatisfy { $0.read(until: "}}") && Self.refusalCode($0.text) == "tooManyRequests" }, "\(back.map(\.text))")

        // Alice's signed URLs take her share too: with her 8 waiting, each is refused at once.
        let flood = try (0..<20).map { _ in try OpenHTTPStream(port: port, path: signed) }
        #expect(flood.allSatisfy { $0.read(until: "}}", seconds: 5) && $0.text.hasPrefix("HTTP/1.1 429") },
                "\(flood.map { $0.text.prefix(60) })")
        #expect(flood.allSatisfy { Self.refusalCode($0.text) == "tooManyRequests" })
    }

    /// The `error.code` of a raw HTTP answer's JSON body (docs/api.md, "Errors").
    static func refusalCode(_ answer: String) -> String? {
        guard let body = answer.components(separatedBy: "\r\n\r\n").dropFirst().first,
              let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        return (json["error"] as? [String: Any])?["code"] as? String
    }

    /// One client address holds at most `--max-connections-per-client` (here 16 of 64), so
    /// 40 requests that never finish their head take only its own share: another address
    /// is served at once. And a head not finished within 10 s is closed, share and all.
    @Test func oneAddressTakesOnlyItsShareAndUnfinishedHeadsAreClosed() throws {
        let farm = try FarmFixture()
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--max-connections", "64", "--max-connections-per-client", "16"])
        let base = try farm.apiBase()
        let port = try #require(URLComponents(string: base)?.port)
        let hanging = try (0..<40).map { _ in try OpenHTTPStream(port: port, path: "/v1/workers", complete: false) }
        // Past its share, the same address is refused at once (its 17th head finishes it).
        let extra = try OpenHTTPStream(port: port, path: "/v1/workers")
        #expect(extra.read(until: "\r\n\r\n") && extra.text.hasPrefix("HTTP/1.1 503"), "\(extra.text.prefix(200))")
        let other = try OpenHTTPStream(port: port, path: "/v1/workers", source: "127.0.0.2")
        #expect(other.read(until: "\r\n\r\n", seconds: 5) && other.text.hasPrefix("HTTP/1.1 200"), "\(other.text.prefix(200))")
        // The hanging heads are closed after 10 s, and the address is served again.
        let started = Date()
        for connection in hanging.prefix(16) { #expect(!connection.read(until: "HTTP/1.1", seconds: 20)) }
        #expect(Date().timeIntervalSince(started) < 15)
        let again = try OpenHTTPStream(port: port, path: "/v1/workers")
        #expect(again.read(until: "\r\n\r\n", seconds: 5) && again.text.hasPrefix("HTTP/1.1 200"), "\(again.text.prefix(200))")
    }
}
