import Foundation
import ReelTestSupport
import Testing

/// Thumbnails through the farm (docs/operations.md): one media's pictures go to one worker's cache,
/// survive its restart, move when it dies, and jump the queue of a busy farm.
@Suite(.serialized) struct FarmStillTests {
    private func thumbnail(_ farm: FarmFixture, time: Double? = nil, segment: Int = 0) throws -> [String: Any] {
        let r = try farm.reel(["thumbnail", "s.json", "--segment", String(segment), "--size", "96x96", "-o", "t.jpg", "--json",
                               "--cache-dir", farm.path("client-cache")] + (time.map { ["--time", String($0)] } ?? []))
        #expect(r.status == 0, "\(r.stderr)\n\(farm.log("coordinator.log").suffix(1500))")
        return (try? JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]) ?? [:]
    }

    private func waitForWorkers(_ farm: FarmFixture, _ count: Int) throws {
        let ready = try farm.waitUntil(20) {
            (try? JSONSerialization.jsonObject(with: farm.reel(["workers", "--json"]).stdoutData) as? [Any])?.count == count
        }
        #expect(ready, "\(count) worker(s) did not join")
    }

    @Test func cachedOnRepeatAndAfterAWorkerRestartWithoutDecoding() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        try farm.startCoordinator()
        let decodes = farm.path("decodes.log")
        try farm.startWorker("a", ["--test-render-log", decodes])
        try waitForWorkers(farm, 1)
        func count() -> Int { ((try? String(contentsOfFile: decodes, encoding: .utf8)) ?? "").split(separator: "\n").count }
        #expect(try thumbnail(farm)["cached"] as? Bool == false)
        #expect(try thumbnail(farm)["cached"] as? Bool == true)
        #expect(count() == 1)
        // The same cache directory after a restart: still a hit, still one decode.
        farm.killWorker("a")
        try farm.startWorker("a", ["--test-render-log", decodes])
        let first = try thumbnail(farm)
        #expect(first["cached"] as? Bool == true, "\(first)")
        #expect(count() == 1)
        // Invalidation reaches the worker before the next request.
        #expect(try farm.reel(["thumbnail", "s.json", "--segment", "0", "--invalidate"]).status == 0)
        #expect(try thumbnail(farm)["cached"] as? Bool == false)
        #expect(count() == 2)
    }

    @Test func oneMediaGoesToOneWorkerAndMovesWhenItDies() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        try farm.startCoordinator()
        for name in ["a", "b", "c"] { try farm.startWorker(name) }
        try waitForWorkers(farm, 3)
        var servedBy: Set<String> = []
        for i in 0..<20 {
            servedBy.insert(try thumbnail(farm, time: Double(i) * 0.1)["worker"] as? String ?? "?")
        }
        #expect(servedBy.count == 1, "\(servedBy)")
        // Kill the worker that holds this media's cache: the next one in the ranking serves.
        let chosen = try #require(servedBy.first)
        let victim = try #require(farm.workers.first { name, _ in farm.log("worker-\(name).log").contains(chosen) }?.key)
        farm.killWorker(victim)
        let after = try thumbnail(farm, time: 0.25)
        #expect(after["worker"] as? String != chosen)
        #expect(after["width"] as? Int == 96)
    }

    @Test func aThumbnailIsServedWhileARenderKeepsEveryWorkerBusy() throws {
        let farm = try FarmFixture()
        let r = try TestEnvironment.reel(["sample", farm.path("long.mp4"), "--duration", "8", "--size", "640x360", "--no-audio"])
        #expect(r.status == 0)
        _ = try TestEnvironment.write(#"{"video": {"renderSize": [640, 360], "videoSegments": [{"source": "long.mp4"}, {"source": "long.mp4", "speedMultiplier": 0.5}]}}"#,
                                      to: "s.json", in: farm.dir)
        try farm.startCoordinator()
        try farm.startWorker("only", ["--test-shard-delay", "100"])   // one slot, slowed so the render surely outlasts the request
        try waitForWorkers(farm, 1)
        let job = try farm.submit()
        #expect(try farm.waitUntil(30) { (try farm.status(job)["shards"] as? [String: Int])?["running"] ?? 0 > 0 })
        let picture = try thumbnail(farm, time: 4)
        #expect(picture["width"] as? Int == 96 && picture["cached"] as? Bool == false)
        // The render was still going when the thumbnail came back.
        let state = try farm.status(job)["state"] as? String
        #expect(state == "rendering", "job was \(state ?? "?") when the thumbnail arrived")
        #expect(try farm.reel(["cancel", job]).status == 0)
    }
}
