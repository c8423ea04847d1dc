import Foundation
import ReelTestSupport
import Testing

/// docs/api.md, "Webhooks": a receiver in the test (Python's http.server and hmac) gets
/// exactly one successful delivery per event, signed with the coordinator's secret, and
/// gets it again after it answered 500 once; the delivery state is in the job's status.
@Suite(.serialized) struct WebhookTests {
    @Test func eachEndIsDeliveredSignedAndRetriedAfterA500() throws {
        let (farm, receiver, callback) = try Self.farmWithReceiver(worker: ["--test-shard-delay", "300"])
        defer { kill(receiver.processIdentifier, SIGKILL); receiver.waitUntilExit() }
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

    /// A farm of one worker (with `worker`'s options) whose coordinator signs webhooks, and
    /// the receiver they go to, with its URL.
    static func farmWithReceiver(worker: [String]) throws -> (FarmFixture, Process, String) {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        let (receiver, callback) = try startReceiver(farm)
        do {
            try farm.startCoordinator(["--http", "127.0.0.1:0", "--webhook-secret", "secret", "--allow-callback-host", "127.0.0.1"])
            try farm.startWorker("a", worker)
        } catch {
            kill(receiver.processIdentifier, SIGKILL)
            throw error
        }
        return (farm, receiver, callback)
    }

    /// Tests/webhook-receiver.py on a free port, checking signatures with the farm's
    /// secret (written to `secret`) and logging each delivery; returns it and its URL.
    static func startReceiver(_ farm: FarmFixture) throws -> (Process, String) {
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
        var port: String?
        let listening = try farm.waitUntil(20) {
            port = try? String(contentsOfFile: farm.path("port"), encoding: .utf8)
            return !(port ?? "").isEmpty
        }
        if !listening { kill(receiver.processIdentifier, SIGKILL) }
        try #require(listening, "the webhook receiver did not start")
        return (receiver, "http://127.0.0.1:\(port ?? "0")/hook")
    }

    /// A job that fails carries why as a code, not only as words: in the API's status
    /// (`error.code`) and in its webhook's body (`errorCode`, docs/api.md, "Webhooks"). A
    /// worker that fails every shard fails it with `renderFailed`.
    @Test func aFailedJobsStatusAndWebhookCarryItsCode() throws {
        let (farm, receiver, callback) = try Self.farmWithReceiver(worker: ["--test-fail-always"])
        defer { kill(receiver.processIdentifier, SIGKILL); receiver.waitUntilExit() }
        let api = try farm.apiBase()
        let files = try farm.uploadMedia(to: api)
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let body: [String: Any] = ["session": session, "files": files, "callback": callback]
        let reply = try HTTPExchange.send("POST", "\(api)/jobs", body: try JSONSerialization.data(withJSONObject: body))
        #expect(reply.status == 201, "\(reply.text)")
        let id = try #require(((reply.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String)
        func status() throws -> [String: Any]? { try HTTPExchange.send("GET", "\(api)/jobs/\(id)").json as? [String: Any] }
        #expect(try farm.waitUntil(60) { try (status()?["webhook"] as? [String: Any])?["state"] as? String == "delivered" },
                "\(farm.log("coordinator.log").suffix(600))")
        let ended = try status() ?? [:]
        #expect(ended["state"] as? String == "failed")
        #expect((ended["error"] as? [String: Any])?["code"] as? String == "renderFailed", "\(ended)")
        let lines = try String(contentsOfFile: farm.path("deliveries.log"), encoding: .utf8).split(separator: "\n")
        let delivered = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .last { $0["status"] as? Int == 200 }
        let job = (delivered?["body"] as? [String: Any])?["job"] as? [String: Any]
        #expect(delivered?["event"] as? String == "job.failed" && job?["jobID"] as? String == id, "\(lines)")
        #expect(job?["errorCode"] as? String == "renderFailed", "\(lines)")
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

    /// Callbacks that point inward are refused at submission unless the operator lists the
    /// host; nothing is sent to them (the checks are on the URL's text).
    @Test func callbacksToInternalAddressesAreRefusedByDefault() throws {
        let farm = try FarmFixture()
        try TestEnvironment.write("a-webhook-secret-for-the-test-0123456789\n", to: "secret", in: farm.dir)
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--webhook-secret", "secret"])
        let api = try farm.apiBase()
        for callback in ["http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/x", "http://2852039166/x",
                         "http://0xa9.0xfe.0xa9.0xfe/x", "http://127.0.0.1:9/x", "http://[::1]/x", "http://10.0.0.1/x",
                         "http://user:pass@example.com/x", "ftp://example.com/x"] {
            let body = try JSONSerialization.data(withJSONObject: ["session": ["video": ["videoSegments": []]], "callback": callback])
            let reply = try HTTPExchange.send("POST", "\(api)/jobs", body: body)
            let problems = ((reply.json as? [String: Any])?["problems"] as? [[String: String]]) ?? []
            #expect(reply.status == 422 && problems.contains { $0["path"] == "callback" }, "\(callback): \(reply.text)")
        }
    }

    /// Receivers that never answer, or answer with a body that never ends, cost only
    /// their own deliveries: each attempt ends within the 10 s deadline, the coordinator's
    /// memory stays flat, and another tenant's webhook is delivered meanwhile. A silent
    /// host and a closed port read the same in the job's status.
    @Test func aSilentOrEndlessReceiverDelaysOnlyItself() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        try TestEnvironment.write("a-webhook-secret-for-the-test-0123456789\n", to: "secret", in: farm.dir)
        let python = try #require(ProcessRunner.which("python3"))
        var receivers: [Process] = []
        defer { for r in receivers { kill(r.processIdentifier, SIGKILL); r.waitUntilExit() } }
        func receiver(_ script: String, _ arguments: [String], port name: String) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [TestEnvironment.packageRoot.appendingPathComponent("Tests/\(script)").path] + arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            receivers.append(process)
            var port = ""
            _ = try farm.waitUntil(20) {
                port = (try? String(contentsOfFile: farm.path(name), encoding: .utf8)) ?? ""
                return !port.isEmpty
            }
            return "http://127.0.0.1:\(port)/hook"
        }
        let silent = try receiver("webhook-misbehaving.py", ["silent", farm.path("silent.port"), farm.path("silent.log")], port: "silent.port")
        let endless = try receiver("webhook-misbehaving.py", ["endless", farm.path("endless.port"), farm.path("endless.log")],
                                   port: "endless.port")
        let good = try receiver("webhook-receiver.py", [farm.path("secret"), farm.path("good.port"), farm.path("good.log")],
                                port: "good.port")
        let closed = "http://127.0.0.1:\(LoopbackPort.free())/hook"

        try farm.startCoordinator(["--http", "127.0.0.1:0", "--webhook-secret", "secret", "--allow-callback-host", "127.0.0.1"])
        try farm.startWorker("a")
        let api = try farm.apiBase()
        let files = try farm.uploadMedia(to: api)
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        func submit(_ callback: String) throws -> String {
            let body: [String: Any] = ["session": session, "files": files, "callback": callback]
            let reply = try HTTPExchange.send("POST", "\(api)/jobs", body: try JSONSerialization.data(withJSONObject: body))
            return try #require(((reply.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String, "\(reply.text)")
        }
        func webhook(_ id: String) throws -> [String: Any] {
            ((try HTTPExchange.send("GET", "\(api)/jobs/\(id)").json as? [String: Any])?["webhook"] as? [String: Any]) ?? [:]
        }
        let coordinatorPID = try #require(farm.coordinatorPID)
        let before = try #require(ProcessMemory.residentKB(of: coordinatorPID))
        // The misbehaving ones first, so their attempts are under way when the good one is due.
        let jobs = (silent: try submit(silent), endless: try submit(endless), closed: try submit(closed), good: try submit(good))

        // The good receiver answers 500 once, then 200: delivered at its second attempt, 1 s
        // after the first, while the silent receiver still holds its first.
        let goodDelivered = try farm.waitUntil(30) { try webhook(jobs.good)["state"] as? String == "delivered" }
        let goodState = try webhook(jobs.good)
        #expect(goodDelivered, "\(goodState) \(farm.log("coordinator.log").suffix(800))")
        // Its two attempts (500, then 200 a second later) within about 2 s of the job's end.
        let finished = try farm.status(jobs.good)["finished"] as? Double ?? 0
        let late = (goodState["deliveredAt"] as? Double ?? .infinity) - finished
        #expect(late < 3, "delivered \(late) s after the job ended")
        #expect((try webhook(jobs.silent)["lastError"]) == nil, "the silent receiver's first attempt had ended before the good one was delivered")

        // Every attempt is over within the deadline: the silent one's first ends by ~10 s.
        let silentEnded = try farm.waitUntil(20) { try webhook(jobs.silent)["lastError"] != nil }
        #expect(silentEnded)
        let silentError = try webhook(jobs.silent)["lastError"] as? String
        #expect(silentError == "no answer within 10 s", "\(String(describing: silentError))")
        #expect(try webhook(jobs.closed)["lastError"] as? String == silentError, "a closed port reads as a silent host")
        let endlessState = try webhook(jobs.endless)
        #expect(endlessState["lastStatus"] as? Int == 500, "\(endlessState)")
        let after = try #require(ProcessMemory.residentKB(of: coordinatorPID))
        #expect(after - before < 50_000, "the coordinator grew from \(before) to \(after) KB")
    }
}
