import Foundation
import ReelTestSupport
import Testing

/// The short run of bench/chaos (docs/benchmarks.md, "Chaos"): workers SIGKILLed every
/// second and the coordinator once, mid-job; the output is a clean render's, byte for byte.
@Suite(.serialized) struct ChaosTests {
    @Test func killedWorkersAndARestartedCoordinatorLeaveTheOutputIdentical() throws {
        let dir = try TestEnvironment.scratchDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["REEL"] = TestEnvironment.reel
        environment["BENCH_DIR"] = dir.path
        let script = TestEnvironment.packageRoot.appendingPathComponent("bench/chaos").path
        let run = try ProcessRunner.run("/bin/bash", [script, "--short"], environment: environment, timeout: 240)
        #expect(run.status == 0, "\(run.stderr.suffix(3000))")
        #expect(run.stdout.contains("byte-identical to a one-process render: yes"), "\(run.stdout)")
        // It really was chaos: several kills, the coordinator's among them.
        let kills = run.stdout.firstMatch(of: /with (\d+) kills/).flatMap { Int($0.1) } ?? 0
        #expect(kills >= 3, "\(run.stdout)")
        let log = (try? String(contentsOf: dir.appendingPathComponent("coordinator.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("resumed job"), "\(log.suffix(2000))")
    }
}
