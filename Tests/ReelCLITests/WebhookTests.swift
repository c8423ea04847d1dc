import Foundation
import ReelTestSupport
import Testing

/// docs/api.md, "Webhooks": a receiver in the test (Python's http.server and hmac) gets
/// exactly one successful delivery per event, signed with the coordinator's secret, and
/// gets it again after it answered 500 once; the delivery state is in the job's status.
@Suite(.serialized) struct WebhookTests {
    @Test func eachEndIsDeliveredSignedAndRetriedAfterA500() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        let secret = "a-webhook-secret-for-the-test-0123456789"
        try TestEnvironment.write(secret + "\n", to: "secret", in: farm.dir)

        let python = try #require(ProcessRunner.which("python3"))
        let receiver = Process()
        receiver.executableURL = URL(fileURLWithPath: python)
        receiver.arguments = [TestEnvironment.packageRoot.appendingPathComponent("Tests/webhook-receiver.py").path,
                              farm.path("secret"), farm.path("port"), farm.path("deliveries.log")]
        // Not our pipes (an orphan holding them would keep the test run waiting), and
        // SIGKILL: it inherits this thread's blocked signals, SIGTERM among them.
        receiver.standardOutput = FileHandle.nullDevice
        receiver.standardError = FileHandle.nullDevice
        try receiver.run()
        defer { kill(receiver.processIdentifier, SIGKILL); receiver.waitUntilExit() }
        var port: String?
        #expect(try farm.waitUntil(20) {
            port = try? String(contentsOfFile: farm.path("port"), encoding: .utf8)
            return !(port ?? "").isEmpty
        })
        let callback = "http://127.0.0.1:\(port ?? "0")/hook"

        try farm.startCoordinator(["--http", "127.0.0.1:0", "--webhook-secret", "secret"])
        try farm.startWorker("a", ["--test-shard-delay", "300"])
        let api = try farm.apiBase()
        var files: [String: String] = [:]
        for name in ["a.mp4", "b.mp4"] {
            let sum = try ProcessRunner.run("/usr/bin/sha256sum", [farm.path(name)]).stdout.split(separator: " ").first.map(String.init) ?? ""
            files[name] = "sha256:" + sum
            let put = try HTTPExchange.send("PUT", "\(api)/media/sha256:\(sum)", body: try Data(contentsOf: URL(fileURLWithPath: farm.path(name))))
            #expect(put.status == 201)
        }
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        func submit() throws -> String {
            let body: [String: Any] = ["session": session, "files": files, "callback": callback,
                                       "settings": ["keyframeIntervalSeconds": 0.5]]
            let reply = try HTTPExchange.send("POST", "\(api)/jobs", body: try JSONSerialization.data(withJSONObject: body))
            #expect(reply.status == 201, "\(reply.text)")
            return try #require(((reply.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String)
        }
        func webhook(_ id: String) throws -> [String: Any]? {
            (try HTTPExchange.send("GET", "\(api)/jobs/\(id)").json as? [String: Any])?["webhook"] as? [String: Any]
        }

        let done = try submit()
        let cancelled = try submit()
        #expect(try HTTPExchange.send("DELETE", "\(api)/jobs/\(cancelled)").status == 200)
        let delivered = try farm.waitUntil(60) {
            try webhook(done)?["state"] as? String == "delivered" && webhook(cancelled)?["state"] as? String == "delivered"
        }
        #expect(delivered, "\(farm.log("coordinator.log").suffix(600))")

        // The list pages newest first, the next page linked (docs/api.md, "Endpoints").
        let firstPage = try HTTPExchange.send("GET", "\(api)/jobs?limit=1")
        #expect((firstPage.json as? [[String: Any]])?.map { $0["jobID"] as? String } == [cancelled], "\(firstPage.text)")
        let link = try #require(firstPage.headers["link"])
        #expect(link.hasPrefix("</v1/jobs?limit=1&after=") && link.hasSuffix(">; rel=\"next\""), "\(link)")
        let origin = String(api.dropLast("/v1".count))
        let secondPage = try HTTPExchange.send("GET", origin + link.dropFirst().prefix { $0 != ">" })
        #expect((secondPage.json as? [[String: Any]])?.map { $0["jobID"] as? String } == [done], "\(secondPage.text)")
        #expect(try HTTPExchange.send("GET", "\(api)/jobs?limit=0").status == 400)

        let lines = try String(contentsOfFile: farm.path("deliveries.log"), encoding: .utf8).split(separator: "\n")
        let deliveries = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(deliveries.count == 4, "\(lines)")
        for (id, event) in [(done, "job.done"), (cancelled, "job.cancelled")] {
            let mine = deliveries.filter { $0["delivery"] as? String == "\(id):\(event)" }
            #expect(mine.map { $0["status"] as? Int } == [500, 200], "\(mine)")
            #expect(mine.allSatisfy { $0["event"] as? String == event && $0["signatureValid"] as? Bool == true && $0["fresh"] as? Bool == true })
            let job = mine.last?["body"] as? [String: Any]
            #expect((job?["job"] as? [String: Any])?["jobID"] as? String == id)
            #expect((job?["job"] as? [String: Any])?["state"] as? String == String(event.dropFirst(4)))
            #expect(try webhook(id)?["attempts"] as? Int == 2)
        }
    }

    @Test func aCallbackNeedsAWebhookSecret() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        try farm.startCoordinator(["--http", "127.0.0.1:0"])
        let api = try farm.apiBase()
        let body = #"{"session": {"video": {"videoSegments": []}}, "callback": "http://127.0.0.1:9/x"}"#
        let reply = try HTTPExchange.send("POST", "\(api)/jobs", body: Data(body.utf8))
        #expect(reply.status == 422, "\(reply.text)")
        let problems = ((reply.json as? [String: Any])?["problems"] as? [[String: String]]) ?? []
        #expect(problems.contains { $0["path"] == "callback" && ($0["message"] ?? "").contains("--webhook-secret") }, "\(problems)")
        let notHTTP = try HTTPExchange.send("POST", "\(api)/jobs", body: Data(#"{"session": {}, "callback": "file:///etc/passwd"}"#.utf8))
        #expect(notHTTP.status == 422)
    }
}
