import Crypto
import Foundation
import ReelTestSupport
import Testing

/// docs/api.md, "Batches": `POST /v1/batches` on a running coordinator and worker — one
/// job per variant, shards the variants share rendered once, a cancelled variant ending
/// alone, each output the single render of its variant.
@Suite(.serialized) struct FarmBatchTests {
    @Test func aBatchOverHTTPRendersSharedShardsOnceAndAVariantEndsAlone() throws {
        let farm = try FarmFixture()
        defer { farm.stopAll() }
        try farm.makeSession(seconds: 2)
        let made = try TestEnvironment.reel(["sample", farm.path("c.mp4"), "--duration", "3", "--size", "192x108", "--tone", "330"])
        #expect(made.status == 0, "\(made.stderr)")
        // No worker yet: nothing renders until the cancelled variant has been cancelled.
        try farm.startCoordinator(["--http", "127.0.0.1:0"])
        let base = try farm.apiBase()
        var files = try farm.uploadMedia(to: base)
        let c = try Data(contentsOf: URL(fileURLWithPath: farm.path("c.mp4")))
        let cID = "sha256:" + SHA256.hash(data: c).map { String(format: "%02x", $0) }.joined()
        #expect(try HTTPExchange.send("PUT", "\(base)/media/\(cID)", body: c).status == 201)
        files["c.mp4"] = cID
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let json = ["Content-Type": "application/json"]
        func post(_ variants: [[String: Any]]) throws -> HTTPExchange {
            let body: [String: Any] = ["session": session, "files": files, "settings": ["keyframeIntervalSeconds": 0.5], "variants": variants]
            return try HTTPExchange.send("POST", "\(base)/batches", headers: json, body: try JSONSerialization.data(withJSONObject: body))
        }

        // A bad variant refuses the whole batch, naming it; no job is made.
        let refused = try post([["name": "ok", "replace": ["b.mp4": "c.mp4"]], ["name": "bad", "replace": ["z.mp4": "c.mp4"]]])
        #expect(refused.status == 422, "\(refused.text)")
        func problems(_ reply: HTTPExchange) -> [[String: String]] {
            ((reply.json as? [String: Any])?["problems"] as? [[String: String]]) ?? []
        }
        // Each problem keeps its path, under the variant's (the coordinator sends them typed).
        #expect(problems(refused).contains { ($0["path"] ?? "").hasPrefix("variants[1].replace")
                                             && ($0["message"] ?? "").contains("'z.mp4' is not a source") }, "\(refused.text)")
        let twice = try post([["name": "x", "replace": [:]], ["name": "x", "replace": [:]]])
        #expect(twice.status == 422 && problems(twice).map { $0["path"] } == ["variants[1].name"], "\(twice.text)")
        #expect((try HTTPExchange.send("GET", "\(base)/jobs").json as? [Any])?.isEmpty == true)

        let created = try post([["name": "c", "replace": ["b.mp4": "c.mp4"]], ["name": "a", "replace": ["b.mp4": "a.mp4"]],
                                ["name": "gone", "replace": ["b.mp4": "c.mp4"]]])
        #expect(created.status == 201, "\(created.text)")
        let batch = try #require((created.json as? [String: Any])?["batch"] as? [String: Any])
        let batchID = try #require(batch["batchID"] as? String)
        #expect(created.headers["location"] == "/v1/batches/\(batchID)")
        let jobs = try #require(batch["variants"] as? [[String: Any]])
        #expect(jobs.compactMap { $0["variant"] as? String } == ["c", "a", "gone"])
        #expect(jobs.allSatisfy { $0["batch"] as? String == batchID })
        let ids = jobs.compactMap { $0["jobID"] as? String }
        try #require(ids.count == 3)

        #expect(try HTTPExchange.send("DELETE", "\(base)/jobs/\(ids[2])").status == 200)
        try farm.startWorker("w")
        for id in ids.prefix(2) {
            let events = try HTTPExchange.send("GET", "\(base)/jobs/\(id)/events")
            #expect(events.text.contains("event: done"), "\(id): \(events.text.suffix(400))\n\(farm.log("coordinator.log").suffix(2000))")
        }
        let status = try #require(try HTTPExchange.send("GET", "\(base)/batches/\(batchID)").json as? [String: Any])
        #expect(status["state"] as? String == "partial", "\(status)")
        #expect((status["variants"] as? [[String: Any]])?.compactMap { $0["state"] as? String } == ["done", "done", "cancelled"])
        // `reel watch` follows a batch: a line per variant, the batch's state, exit 1 as one was cancelled.
        let watched = try farm.reel(["watch", batchID])
        #expect(watched.status == 1, "\(watched.stderr)")
        #expect(watched.stdout.contains("c \(ids[0]) done") && watched.stdout.contains("gone \(ids[2]) cancelled")
                && watched.stdout.contains("\(batchID) partial"), "\(watched.stdout)")
        let listed = try farm.reel(["status", batchID])
        #expect(listed.status == 0 && listed.stdout.contains("\(batchID)  partial") && listed.stdout.contains("variant gone of \(batchID)"),
                "\(listed.stdout)")
        #expect(try farm.reel(["status", "bnosuchbatch"]).status == 2)
        // Segments 0 and 2 (a.mp4) are the same in both rendered variants: each of their
        // video shards rendered for one variant and taken by the other.
        let shards = try #require(try HTTPExchange.send("GET", "\(base)/jobs/\(ids[0])/shards").json as? [[String: Any]])
        let shared = shards.filter { $0["kind"] as? String == "video" && [0, 2].contains($0["segment"] as? Int ?? -1) }.count
        #expect(shared > 0 && status["reusedShards"] as? Int == shared, "\(shared) shared shards; \(status)")

        // Each output is its variant's single render, byte for byte.
        for (index, replacement) in ["c.mp4", "a.mp4"].enumerated() {
            let output = try HTTPExchange.send("GET", "\(base)/jobs/\(ids[index])/output")
            let single = try TestEnvironment.reel(["render", "s.json", "-o", "single-\(index).mp4", "--replace", "b.mp4=\(replacement)"]
                                                  + FarmFixture.shortGOP, in: farm.dir)
            #expect(single.status == 0, "\(single.stderr)")
            #expect(output.body == (try Data(contentsOf: URL(fileURLWithPath: farm.path("single-\(index).mp4")))), "variant \(index)")
        }
        let expected = try Data(contentsOf: URL(fileURLWithPath: farm.path("single-0.mp4")))

        // So is a job with `replace` beside its files (the coordinator replaces), and
        // `reel submit --replace` (the client replaces, then submits).
        let job: [String: Any] = ["session": session, "files": files, "settings": ["keyframeIntervalSeconds": 0.5],
                                  "replace": ["b.mp4": "c.mp4"]]
        let submitted = try HTTPExchange.send("POST", "\(base)/jobs", headers: json, body: try JSONSerialization.data(withJSONObject: job))
        #expect(submitted.status == 201, "\(submitted.text)")
        let jobID = try #require(((submitted.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String)
        _ = try HTTPExchange.send("GET", "\(base)/jobs/\(jobID)/events")
        #expect(try HTTPExchange.send("GET", "\(base)/jobs/\(jobID)/output").body == expected)
        let cli = try farm.reel(["submit", "s.json", "--replace", "b.mp4=c.mp4", "--wait", "-o", farm.path("cli.mp4")] + FarmFixture.shortGOP)
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: farm.path("cli.mp4"))) == expected)
        // A replacement the API cannot make names its path.
        var late = job
        late["replace"] = ["b.mp4": "missing.mp4"]
        let unmade = try HTTPExchange.send("POST", "\(base)/jobs", headers: json, body: try JSONSerialization.data(withJSONObject: late))
        #expect(unmade.status == 422 && unmade.text.contains("missing.mp4"), "\(unmade.text)")
    }
}
