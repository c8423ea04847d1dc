import Foundation
import ReelTestSupport
import Testing

/// The short run of bench/chaos (docs/benchmarks.md, "Chaos"): 20 worker processes and 3
/// jobs of 38 shards while workers are killed, preempted, frozen past the heartbeat
/// timeout and cut off, and the coordinator is killed once, beside a worker that fails
/// every shard: every output is a clean render's byte for byte, every job is there once,
/// little work is thrown away, and the sick worker is quarantined.
@Suite(.serialized) struct ChaosTests {
    @Test func twentyWorkersUnderChaosAndARestartedCoordinatorLeaveEveryOutputIdentical() throws {
        let dir = try TestEnvironment.scratchDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["REEL"] = TestEnvironment.reel
        environment["BENCH_DIR"] = dir.path
        let figures = dir.deletingLastPathComponent().appendingPathComponent("chaos-\(UUID().uuidString).json")
        let script = TestEnvironment.packageRoot.appendingPathComponent("bench/chaos").path
        let run = try ProcessRunner.run("/usr/bin/python3", [script, "--short", "--json", figures.path], environment: environment, timeout: 300)
        #expect(run.status == 0, "\(run.stdout.suffix(2000))\n\(run.stderr.suffix(3000))")
        let runs = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: figures)) as? [[String: Any]])
        let result = try #require(runs.first)
        #expect(result["identical"] as? Bool == true && result["once"] as? Bool == true, "\(result)")
        #expect((result["waste"] as? Double ?? 1) <= 0.5, "\(result)")
        #expect(result["backWhereItStarted"] as? Bool == true, "\(result)")
        // The worker that fails every shard is quarantined at its third failure, in each
        // coordinator's life (a restart forgets strikes).
        let sickFailures = result["sickFailures"] as? [Int] ?? []
        #expect(result["sickQuarantined"] as? Bool == true && sickFailures.count == 2 && sickFailures.allSatisfy { $0 <= 3 },
                "\(result)")
        // It really was chaos: the coordinator killed once, and workers in several ways.
        let events = result["events"] as? [String: Int] ?? [:]
        #expect(events["coordinator"] == 1, "\(events)")
        #expect(events.filter { $0.key != "coordinator" }.values.reduce(0, +) >= 5, "\(events)")
        #expect(events.filter { $0.key != "coordinator" && $0.value > 0 }.count >= 3, "\(events)")
        let log = (try? String(contentsOf: dir.appendingPathComponent("coordinator.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("resumed job"), "\(log.suffix(2000))")
    }
}
