import Foundation
import ReelTestSupport
import Testing

/// Cancel reaches the renders themselves, and a slot is free only when its worker says so.
@Suite(.serialized) struct FarmCancelTests {
    @Test func cancelStopsRunningRendersWithinASecondAndFreesTheSlotOnConfirmation() throws {
        let farm = try FarmFixture()
        let sample = try TestEnvironment.reel(["sample", farm.path("long.mp4"), "--duration", "12", "--size", "640x360", "--no-audio"])
        #expect(sample.status == 0)
        // One long shard: 12 s in one GOP-pair of 6 s keyframes, slowed by sharpening.
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "long.mp4"}], "filters": [{"type": "sharpness", "normalizedIntensity": 0.5}]}}"#,
                                  to: "s.json", in: farm.dir)
        try farm.startCoordinator()
        try farm.startWorker("a")
        let submitted = try farm.reel(["submit", "s.json", "--keyframe-interval", "6"])
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let job = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try farm.waitUntil(30) { (try farm.status(job)["shards"] as? [String: Int])?["running"] ?? 0 > 0 })
        let cancelled = Date()
        #expect(try farm.reel(["cancel", job]).status == 0)
        // The worker stops the render it is in the middle of, and says so.
        #expect(try farm.waitUntil(10) { farm.log("worker-a.log").contains("stopped shard") })
        #expect(Date().timeIntervalSince(cancelled) < 3, "the render took \(Date().timeIntervalSince(cancelled)) s to stop")
        // Its slot is free again once it confirmed.
        #expect(try farm.waitUntil(10) {
            let workers = try JSONSerialization.jsonObject(with: farm.reel(["workers", "--json"]).stdoutData) as? [[String: Any]]
            return workers?.first?["busy"] as? Int == 0
        })
        #expect(try farm.status(job)["state"] as? String == "cancelled")
    }
}

/// SIGTERM on a worker: no new work, running shards handed back (drain 0 s), scratch
/// removed, exit 0 — and the job still completes byte-identical on the other worker.
@Suite(.serialized) struct WorkerDrainTests {
    @Test func sigtermMidShardHandsTheShardBackAndTheJobCompletes() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 4)
        try farm.startCoordinator()
        try farm.startWorker("a", ["--test-shard-delay", "400", "--drain-seconds", "0"])
        #expect(try farm.waitUntil(20) { farm.log("coordinator.log").contains("joined") })
        let job = try farm.submit()
        // Wait until worker a holds a shard, then start b and stop a.
        #expect(try farm.waitUntil(30) { (try farm.status(job)["shards"] as? [String: Int])?["running"] ?? 0 > 0 })
        try farm.startWorker("b", ["--test-shard-delay", "50"])
        let a = try #require(farm.workers["a"])
        kill(a.processIdentifier, SIGTERM)
        #expect(try farm.waitUntil(15) { !a.isRunning }, "worker a did not leave after SIGTERM")
        #expect(a.terminationStatus == 0)
        #expect(farm.log("worker-a.log").contains("draining"))
        // The coordinator reads the hand-back in its own time (even after a's socket closed).
        #expect(try farm.waitUntil(10) { farm.log("coordinator.log").contains("handed back by") }, "\(farm.log("coordinator.log"))")
        let scratch = try FileManager.default.contentsOfDirectory(atPath: farm.path("cache-a")).filter { $0.hasPrefix("work-") }
        #expect(scratch.isEmpty, "scratch left behind: \(scratch)")
        let output = try farm.fetched(job)
        #expect(output == (try farm.reference()))
        #expect(try farm.status(job)["state"] as? String == "done")
    }

    @Test func sigtermStopsTheCoordinatorCleanly() throws {
        let farm = try FarmFixture()
        try farm.startCoordinator()
        #expect(try farm.waitUntil(20) { farm.log("coordinator.log").contains("listening") })
        let coordinator = try #require(farm.coordinator)
        kill(coordinator.processIdentifier, SIGTERM)
        #expect(try farm.waitUntil(10) { !coordinator.isRunning })
        #expect(coordinator.terminationStatus == 0)
        #expect(farm.log("coordinator.log").contains("coordinator stopped"))
    }
}
