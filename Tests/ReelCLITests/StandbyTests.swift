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

    static func start(_ name: String, _ farm: FarmFixture, store: String) throws -> Candidate {
        let endpoint = LoopbackPort.endpoint()
        let process = try farm.spawn(["coordinator", "--bind", endpoint, "--state-dir", farm.path("state-\(name)"), "--store", store,
                                      "--media-root", farm.dir.path, "--metrics", "127.0.0.1:0"], log: "\(name).log")
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
            let worker = try farm.spawn(["worker", "--connect", a.endpoint, "--connect", b.endpoint, "--slots", "1",
                                         "--cache-dir", farm.path("cache"), "--test-shard-delay", "150"], log: "worker.log")
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
    }
}
