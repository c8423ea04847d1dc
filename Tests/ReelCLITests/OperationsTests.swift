import Foundation
import ReelTestSupport
import Testing

/// docs/operations.md, "Metrics" and "Logs": a real coordinator and worker with
/// `--metrics` and `--log-format json`, scraped during a render and parsed by the
/// Prometheus project's own parser; every log line parses as JSON and names its ids.
@Suite(.serialized) struct OperationsTests {
    /// Every sample of an endpoint, by `name{label=value,…}`.
    func scrape(_ url: String) throws -> [String: Double] {
        let python = try #require(ProcessRunner.which("python3"))
        let script = TestEnvironment.packageRoot.appendingPathComponent("Tests/scrape-metrics.py").path
        let result = try ProcessRunner.run(python, [script, url], timeout: 30)
        guard result.status == 0 else { throw Failure("scrape \(url): \(result.stderr)") }
        let object = try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Double]
        return try #require(object)
    }

    /// The address the process says it serves metrics on (port 0 picks a free one).
    func metricsURL(in log: @autoclosure () -> String, _ farm: FarmFixture) throws -> String {
        var url: String?
        _ = try farm.waitUntil(30) {
            url = log().components(separatedBy: "metrics on ").dropFirst().first?.prefix { $0 != "\"" && $0 != "\n" }.description
            return url != nil
        }
        return try #require(url)
    }

    @Test func metricsMoveDuringARenderAndLogLinesAreJSONWithIds() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 3)
        let json = ["--log-format", "json", "--log-level", "debug"]
        try farm.startCoordinator(["--metrics", "127.0.0.1:0"] + json)
        try farm.startWorker("a", ["--metrics", "127.0.0.1:0", "--test-shard-delay", "200"] + json)
        let coordinatorMetrics = try metricsURL(in: farm.log("coordinator.log"), farm)
        let workerMetrics = try metricsURL(in: farm.log("worker-a.log"), farm)
        #expect(try farm.waitUntil(30) { (try scrape(coordinatorMetrics)["reelfarm_workers{}"] ?? 0) == 1 })

        let job = try farm.submit()
        // Scraped while it renders: shards leave the queue and frames add up.
        var seen: [[String: Double]] = []
        _ = try farm.waitUntil(120) {
            seen.append(try scrape(coordinatorMetrics))
            return (seen.last?["reelfarm_jobs_ended_total{state=done}"] ?? 0) == 1
        }
        let status = try farm.status(job)
        let totalFrames = try #require((status["totalFrames"] as? NSNumber)?.doubleValue)
        let shards = try #require((status["shards"] as? [String: Int])?.values.reduce(0, +))
        let final = try #require(seen.last)
        #expect(final["reelfarm_jobs_submitted_total{}"] == 1)
        #expect(final["reelfarm_jobs_ended_total{state=done}"] == 1)
        #expect(final["reelfarm_frames_rendered_total{}"] == totalFrames)
        #expect(final["reelfarm_shards_done_total{}"] == Double(shards))
        #expect((final["reelfarm_bytes_received_total{}"] ?? 0) > 0)
        #expect((final["reelfarm_store_commit_seconds_count{}"] ?? 0) > 0)
        #expect(final["reelfarm_assembly_seconds_count{}"] == 1)
        let midway = seen.dropLast().filter { ($0["reelfarm_frames_rendered_total{}"] ?? 0) > 0 && ($0["reelfarm_frames_rendered_total{}"] ?? 0) < totalFrames }
        #expect(!midway.isEmpty, "no scrape saw the job part-way")
        #expect(seen.contains { ($0["reelfarm_shards{state=running}"] ?? 0) > 0 }, "no scrape saw a running shard")
        // The job has no owner: its tenant is `-`, whose shards are the farm's while it runs,
        // and whose series go once its jobs have all ended.
        #expect(seen.contains { ($0["reelfarm_tenant_shards{state=running,tenant=-}"] ?? 0) > 0 }, "no scrape saw the tenant's running shard")
        #expect(try farm.waitUntil(10) { (try scrape(coordinatorMetrics))["reelfarm_tenant_shards{state=queued,tenant=-}"] == nil })
        let worker = try scrape(workerMetrics)
        #expect(worker["reelfarm_worker_frames_total{}"] == totalFrames)
        #expect(worker["reelfarm_worker_shards_total{result=done}"] == Double(shards))
        #expect((worker["reelfarm_worker_shard_seconds_count{phase=encode}"] ?? 0) > 0)
        #expect((worker["reelfarm_worker_resident_memory_bytes{}"] ?? 0) > 10_000_000)

        // Logs: one JSON object per line, and the attempt lines carry their ids.
        for name in ["coordinator.log", "worker-a.log"] {
            let lines = farm.log(name).split(separator: "\n")
            #expect(!lines.isEmpty)
            let unparsed = lines.filter { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) == nil }
            #expect(unparsed.isEmpty, "\(name): \(unparsed.prefix(3))")
        }
        let objects = farm.log("worker-a.log").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let rendered = objects.filter { ($0["message"] as? String)?.hasPrefix("rendered shard") == true }
        #expect(rendered.count == shards)
        #expect(rendered.allSatisfy { $0["job"] as? String == job && $0["shard"] is Int && $0["attempt"] is Int && $0["worker"] is String })
        let dispatched = farm.log("coordinator.log").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["level"] as? String == "debug" && ($0["message"] as? String)?.contains("(attempt ") == true }
        #expect(dispatched.count >= shards)
        #expect(dispatched.allSatisfy { $0["job"] as? String == job && $0["worker"] is String && $0["attempt"] is Int })
    }

    @Test func healthzAnswersAndABadAddressIsRefused() throws {
        let farm = try FarmFixture()
        try farm.startCoordinator(["--metrics", "127.0.0.1:0"])
        let url = try metricsURL(in: farm.log("coordinator.log"), farm)
        let python = try #require(ProcessRunner.which("python3"))
        let health = try ProcessRunner.run(python, ["-c", "import urllib.request,sys; r=urllib.request.urlopen(sys.argv[1]); print(r.status, r.read().decode().strip())",
                                                    url.replacingOccurrences(of: "/metrics", with: "/healthz")])
        #expect(health.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "200 ok")
        let bad = try TestEnvironment.reel(["coordinator", "--state-dir", farm.path("other"), "--metrics", "nowhere"])
        #expect(bad.status == 2)
        #expect(bad.stderrLines.count == 1)
        #expect(bad.stderr.contains("--metrics 'nowhere' is not HOST:PORT"))
    }

    /// Prometheus' own linter passes on both processes' /metrics before any work: HELP and
    /// TYPE on every family, counters present at 0, and each process only its own families.
    @Test(.enabled(if: ProcessRunner.which("promtool") != nil)) func promtoolPassesAndCountersStartAtZero() throws {
        let farm = try FarmFixture()
        try farm.startCoordinator(["--metrics", "127.0.0.1:0"])
        try farm.startWorker("a", ["--metrics", "127.0.0.1:0"])
        let promtool = try #require(ProcessRunner.which("promtool"))
        var expositions: [String: String] = [:]
        for (name, log) in [("coordinator", "coordinator.log"), ("worker", "worker-a.log")] {
            let url = try metricsURL(in: farm.log(log), farm)
            let text = try HTTPExchange.send("GET", url).text
            expositions[name] = text
            let file = farm.path("\(name).prom")
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let lint = try ProcessRunner.run("/bin/sh", ["-c", "\"$0\" check metrics < \"$1\"", promtool, file])
            #expect(lint.status == 0, "\(name): \(lint.stdout) \(lint.stderr)")
            let families = Set(text.split(separator: "\n").filter { $0.hasPrefix("# TYPE reelfarm_") }.map { $0.split(separator: " ")[2] })
            let helped = Set(text.split(separator: "\n").filter { $0.hasPrefix("# HELP reelfarm_") }.map { $0.split(separator: " ")[2] })
            #expect(!families.isEmpty && families == helped, "\(name): no HELP for \(families.subtracting(helped))")
        }
        let coordinator = try #require(expositions["coordinator"]), worker = try #require(expositions["worker"])
        for line in ["reelfarm_jobs_submitted_total 0", "reelfarm_shards_done_total 0", "reelfarm_jobs_ended_total{state=\"failed\"} 0"] {
            #expect(coordinator.contains(line), "\(line)")
        }
        #expect(worker.contains("reelfarm_worker_frames_total 0"))
        #expect(worker.contains("reelfarm_worker_shards_total{result=\"failed\"} 0"))
        for family in ["reelfarm_store_commit_seconds", "reelfarm_jobs_submitted_total", "reelfarm_workers "] {
            #expect(!worker.contains(family), "the worker exports the coordinator's \(family)")
        }
        #expect(!coordinator.contains("reelfarm_worker_frames_total"))
    }

    /// cluster/grafana-dashboard.json: every query parses as PromQL (promtool checks it as
    /// a recording rule) and names only families the farm exports.
    @Test(.enabled(if: ProcessRunner.which("promtool") != nil)) func theGrafanaDashboardQueriesTheFarmsMetrics() throws {
        let url = TestEnvironment.packageRoot.appendingPathComponent("cluster/grafana-dashboard.json")
        let dashboard = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let expressions = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        #expect(expressions.count >= panels.count)
        let dir = try TestEnvironment.scratchDirectory()
        let rules = "groups:\n- name: dashboard\n  rules:\n" + expressions.enumerated().map { i, expr in
            "  - record: dashboard:query\(i)\n    expr: '\(expr.replacingOccurrences(of: "'", with: "''"))'\n"
        }.joined()
        let file = dir.appendingPathComponent("rules.yml")
        try rules.write(to: file, atomically: true, encoding: .utf8)
        let check = try ProcessRunner.run(try #require(ProcessRunner.which("promtool")), ["check", "rules", file.path])
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        // The families the processes export (read from their HELP lines during the test above's kind of scrape).
        let farm = try FarmFixture()
        try farm.startCoordinator(["--metrics", "127.0.0.1:0"])
        try farm.startWorker("a", ["--metrics", "127.0.0.1:0"])
        var exported = Set<String>()
        for log in ["coordinator.log", "worker-a.log"] {
            let text = try HTTPExchange.send("GET", try metricsURL(in: farm.log(log), farm)).text
            for line in text.split(separator: "\n") where line.hasPrefix("# TYPE ") { exported.insert(String(line.split(separator: " ")[2])) }
        }
        for expr in expressions {
            let names = expr.split(whereSeparator: { !($0.isLetter || $0 == "_") }).filter { $0.hasPrefix("reelfarm_") }
            for name in names {
                let family = ["_bucket", "_sum", "_count"].reduce(String(name)) { $0.hasSuffix($1) ? String($0.dropLast($1.count)) : $0 }
                #expect(exported.contains(family), "\(expr): \(family) is not exported")
            }
        }
    }
}
