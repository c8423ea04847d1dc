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
