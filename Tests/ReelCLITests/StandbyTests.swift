import Foundation
import ReelTestSupport
import Testing

/// Two coordinators on one PostgreSQL store (docs/operations.md, "A standby coordinator"):
/// one leads, the other stands by and takes over when the leader dies, and a job in
/// flight ends on the new leader with the bytes a farm that never failed makes. Workers
/// and clients are given both addresses and follow the lead.
@Suite(.serialized, .enabled(if: TestPostgres.isTested)) struct StandbyTests {
    /// A coordinator process of the pair: its address, and where its metrics are.
    struct Candidate {
        let name: String
        let endpoint: String
        var process: Process?

        func metrics(_ farm: FarmFixture) -> String? {
            farm.log("\(name).log").components(separatedBy: "metrics on ").dropFirst().first?
                .prefix { $0 != "\"" && !$0.isWhitespace }.description
        }

        func readyz(_ farm: FarmFixture) -> Int? {
            guard let metrics = metrics(farm) else { return nil }
            return (try? HTTPExchange.send("GET", metrics.replacingOccurrences(of: "/metrics", with: "/readyz"), timeout: 5))?.status
        }
    }

    static func start(_ name: String, _ farm: FarmFixture, store: String, _ extra: [String] = []) throws -> Candidate {
        let endpoint = LoopbackPort.endpoint()
        let process = try farm.spawn(["coordinator", "--bind", endpoint, "--state-dir", farm.path("state-\(name)"), "--store", store,
                                      "--media-root", farm.dir.path, "--metrics", "127.0.0.1:0"] + extra, log: "\(name).log")
        return Candidate(name: name, endpoint: endpoint, process: process)
    }

    static func shards(_ status: [String: Any]) -> (done: Int, total: Int) {
        let counts = status["shards"] as? [String: Any] ?? [:]
        let values = ["queued", "running", "done", "abandoned"].map { counts[$0] as? Int ?? 0 }
        return (counts["done"] as? Int ?? 0, values.reduce(0, +))
    }

    @Test func aJobInFlightWhenTheLeaderIsKilledEndsOnTheStandbyWithTheSameBytes() throws {
        let store = try TestPostgres.freshStore()
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 3)
        let reference = try farm.reference()
        var a = try Self.start("a", farm, store: store)
        defer { a.process.map { kill($0.processIdentifier, SIGKILL) } }
        #expect(try farm.waitUntil(30) { farm.log("a.log").contains("leading the farm") && a.readyz(farm) == 200 }, "\(farm.log("a.log"))")
        let b = try Self.start("b", farm, store: store)
        defer { b.process.map { kill($0.processIdentifier, SIGKILL) } }
        #expect(try farm.waitUntil(30) { farm.log("b.log").contains("standing by") && b.readyz(farm) == 503 }, "\(farm.log("b.log"))")

        let both = ["--coordinator", a.endpoint, "--coordinator", b.endpoint]
        func reel(_ arguments: [String]) throws -> ProcessResult { try TestEnvironment.reel(arguments + both, in: farm.dir) }
        func status(_ job: String) -> [String: Any] {
            guard let result = try? reel(["status", job, "--json"]) else { return [:] }
            return (try? JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]) ?? [:]
        }
        workers: do {
            // Each shard takes a second or more: when the leader dies one is surely being
            // rendered for it, and that chunk must reach the new leader, not be rendered again.
            let worker = try farm.spawn(["worker", "--connect", a.endpoint, "--connect", b.endpoint, "--slots", "1",
                                         "--cache-dir", farm.path("cache"), "--test-shard-delay", "1000"], log: "worker.log")
            farm.workers["w"] = worker
        }
        let submitted = try reel(["submit", "s.json"] + FarmFixture.shortGOP)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let job = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // A quarter of its shards done on the first leader…
        #expect(try farm.waitUntil(120) { let s = Self.shards(status(job)); return s.total > 0 && s.done * 4 >= s.total },
                "\(status(job))")
        let before = Self.shards(status(job))
        #expect(before.done < before.total)
        // A client watching the job through the takeover.
        let watcher = try farm.spawn(["watch", job, "--json"] + both, log: "watch.log")
        // …which dies.
        let killed = Date()
        if let process = a.process { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        a.process = nil
        #expect(try farm.waitUntil(30) { b.readyz(farm) == 200 }, "\(farm.log("b.log").suffix(2000))")
        let takeover = Date().timeIntervalSince(killed)
        #expect(takeover < 10, "the standby led \(takeover) s after the leader was killed")
        // The job ends on the new leader, the worker having followed it.
        #expect(try farm.waitUntil(180) { status(job)["state"] as? String == "done" },
                "\(status(job))\n\(farm.log("b.log").suffix(3000))\n\(farm.log("worker.log").suffix(2000))")
        let fetched = try reel(["fetch", job, "-o", "out.mp4"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: farm.path("out.mp4"))) == reference)
        // The shard rendered while no one led was taken by the new leader.
        #expect(farm.log("b.log").contains("rendered for the coordinator before"), "\(farm.log("b.log").suffix(2000))")
        // The watcher followed the job to its end on the new leader.
        #expect(try farm.waitUntil(30) { !watcher.isRunning }, "\(farm.log("watch.log").suffix(1000))")
        #expect(watcher.terminationStatus == 0, "\(farm.log("watch.log").suffix(1000))")
        let last = farm.log("watch.log").split(separator: "\n").last { $0.hasPrefix("{") }
        let final = last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(final?["state"] as? String == "done", "\(farm.log("watch.log").suffix(1000))")
    }

    /// A frozen leader (SIGSTOP) keeps its connection: the standby leads once the lease
    /// has run out. Woken again, the old leader finds the lead gone in its first turn,
    /// writes and sends nothing of it, and stands by.
    @Test func aFrozenLeaderIsReplacedAndStandsByWhenItWakes() throws {
        let store = try TestPostgres.freshStore()
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        let reference = try farm.reference()
        let a = try Self.start("a", farm, store: store, ["--trace", farm.path("a-trace.jsonl")])
        defer { a.process.map { kill($0.processIdentifier, SIGCONT); kill($0.processIdentifier, SIGKILL) } }
        #expect(try farm.waitUntil(30) { a.readyz(farm) == 200 }, "\(farm.log("a.log"))")
        let b = try Self.start("b", farm, store: store)
        defer { b.process.map { kill($0.processIdentifier, SIGKILL) } }
        #expect(try farm.waitUntil(30) { b.readyz(farm) == 503 }, "\(farm.log("b.log"))")
        let both = ["--coordinator", a.endpoint, "--coordinator", b.endpoint]
        func status(_ job: String) -> [String: Any] {
            guard let result = try? TestEnvironment.reel(["status", job, "--json"] + both, in: farm.dir) else { return [:] }
            return (try? JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]) ?? [:]
        }
        farm.workers["w"] = try farm.spawn(["worker", "--connect", a.endpoint, "--connect", b.endpoint, "--slots", "1",
                                            "--cache-dir", farm.path("cache"), "--test-shard-delay", "300"], log: "worker.log")
        let submitted = try TestEnvironment.reel(["submit", "s.json"] + FarmFixture.shortGOP + both, in: farm.dir)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let job = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try farm.waitUntil(120) { let s = Self.shards(status(job)); return s.total > 0 && s.done * 4 >= s.total }, "\(status(job))")

        let leader = try #require(a.process)
        let frozen = Date()
        kill(leader.processIdentifier, SIGSTOP)
        #expect(try farm.waitUntil(30) { b.readyz(farm) == 200 }, "\(farm.log("b.log").suffix(2000))")
        let takeover = Date().timeIntervalSince(frozen)
        #expect(takeover < 15, "the standby led \(takeover) s after the leader froze")
        // Woken, the old leader stands by.
        let woken = Date().timeIntervalSince1970
        kill(leader.processIdentifier, SIGCONT)
        #expect(try farm.waitUntil(30) { farm.log("a.log").contains("standing by again") && a.readyz(farm) == 503 },
                "\(farm.log("a.log").suffix(2000))")
        #expect(try farm.waitUntil(180) { status(job)["state"] as? String == "done" }, "\(status(job))\n\(farm.log("b.log").suffix(3000))")
        // Nothing it decided after waking was recorded: its trace ends before.
        let traced = (try? String(contentsOfFile: farm.path("a-trace.jsonl"), encoding: .utf8)) ?? ""
        let times = traced.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["time"] as? Double
        }
        #expect(times.allSatisfy { $0 < woken }, "\(times.filter { $0 >= woken }.count) trace lines after it woke")
        let fetched = try TestEnvironment.reel(["fetch", job, "-o", "out.mp4"] + both, in: farm.dir)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: farm.path("out.mp4"))) == reference)
    }

    /// A submission retried with one `Idempotency-Key` through a takeover is one job: the
    /// key and its first answer are in the shared store. The job's media were uploaded to
    /// the dead leader only: on the new one it fails, saying so (`mediaLost`).
    @Test func aTakeoverKeepsIdempotencyKeysAndFailsJobsOfLostUploads() throws {
        let store = try TestPostgres.freshStore()
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        var a = try Self.start("a", farm, store: store, ["--http", "127.0.0.1:0"])
        defer { a.process.map { kill($0.processIdentifier, SIGKILL) } }
        #expect(try farm.waitUntil(30) { a.readyz(farm) == 200 }, "\(farm.log("a.log"))")
        let b = try Self.start("b", farm, store: store, ["--http", "127.0.0.1:0"])
        defer { b.process.map { kill($0.processIdentifier, SIGKILL) } }
        #expect(try farm.waitUntil(30) { b.readyz(farm) == 503 }, "\(farm.log("b.log"))")
        func api(_ name: String) -> String? {
            farm.log("\(name).log").components(separatedBy: "HTTP API on ").dropFirst().first?.prefix { !$0.isWhitespace }.description
        }
        let (apiA, apiB) = (try #require(api("a")), try #require(api("b")))
        let files = try farm.uploadMedia(to: apiA)
        let body = try JSONSerialization.data(withJSONObject: [
            "session": ["video": ["renderSize": [160, 96], "videoSegments": [["source": "a.mp4", "trimDuration": 0.9]]]], "files": files,
        ] as [String: Any])
        let headers = ["Content-Type": "application/json", "Idempotency-Key": "order-7"]
        // A standby takes no write: 503, its code, and when to come back.
        let early = try HTTPExchange.send("POST", "\(apiB)/jobs", headers: headers, body: body)
        #expect(early.status == 503, "\(early.status) \(early.text)")
        #expect(((early.json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String == "notLeader")
        #expect(early.headers["retry-after"] != nil || early.headers["Retry-After"] != nil, "\(early.headers)")
        let first = try HTTPExchange.send("POST", "\(apiA)/jobs", headers: headers, body: body)
        #expect(first.status == 201 || first.status == 200, "\(first.status) \(first.text)")
        func jobID(_ answer: HTTPExchange) -> String? { ((answer.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String }
        let job = try #require(jobID(first), "\(first.text)")
        if let process = a.process { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        a.process = nil
        #expect(try farm.waitUntil(30) { b.readyz(farm) == 200 }, "\(farm.log("b.log").suffix(2000))")
        let retried = try HTTPExchange.send("POST", "\(apiB)/jobs", headers: headers, body: body)
        #expect(jobID(retried) == job, "\(retried.status) \(retried.text)")
        let jobs = try HTTPExchange.send("GET", "\(apiB)/jobs")
        let listed = (jobs.json as? [[String: Any]])?.compactMap { $0["jobID"] as? String } ?? []
        #expect(listed == [job], "\(jobs.text.prefix(500))")
        let status = try HTTPExchange.send("GET", "\(apiB)/jobs/\(job)").json as? [String: Any]
        #expect(status?["state"] as? String == "failed" && (status?["error"] as? [String: Any])?["code"] as? String == "mediaLost",
                "\(status ?? [:])")
    }
}
