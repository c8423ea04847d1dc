import Foundation
import ReelTestSupport
import Testing

/// docs/operations.md, "Tracing a render": `--trace FILE` writes the job and every shard
/// attempt as JSON lines, the measured costs a capacity model starts from.
@Suite struct TraceTests {
    @Test func aTracedRenderWritesTheJobEachAttemptAndTheEnd() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        let r = try TestEnvironment.reel(["render", "s.json", "-o", "out.mp4", "--workers", "2", "--trace", "trace.jsonl"]
                                         + FarmFixture.shortGOP, in: farm.dir)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try String(contentsOfFile: farm.path("trace.jsonl"), encoding: .utf8).split(separator: "\n")
        let events = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(events.count == lines.count, "every line is JSON")
        let job = try #require(events.first { $0["event"] as? String == "job" })
        let shards = try #require(job["shards"] as? Int)
        let attempts = events.filter { $0["event"] as? String == "attempt" && $0["outcome"] as? String == "done" }
        // One finished attempt per shard; the video shards' frames add up to the output's.
        #expect(Set(attempts.compactMap { $0["shard"] as? Int }) == Set(0..<shards), "\(attempts)")
        let frames = attempts.filter { $0["kind"] as? String == "video" }.compactMap { $0["frames"] as? Int }.reduce(0, +)
        let probed = try ProcessRunner.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                                "stream=nb_read_frames", "-of", "csv=p=0", farm.path("out.mp4")])
        #expect(String(frames) == probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        for attempt in attempts {
            let (started, ended) = (attempt["started"] as? Double ?? .nan, attempt["time"] as? Double ?? .nan)
            #expect(started <= ended && ended - started < 60, "\(attempt)")
            #expect((attempt["chunkBytes"] as? Int ?? 0) > 0 && attempt["worker"] as? String != nil, "\(attempt)")
            // The worker's own time sits inside the coordinator's (one machine, one clock).
            let render = attempt["renderSeconds"] as? Double ?? -1
            #expect(render >= 0 && render <= ended - started + 0.01, "\(attempt)")
        }
        #expect(events.last?["event"] as? String == "jobEnded" && events.last?["state"] as? String == "done")
    }

    /// docs/architecture.md, "Probes by content id": media are probed once, when they reach
    /// the farm; a resubmission of the same media probes nothing.
    @Test func aResubmissionOfKnownMediaProbesNothing() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        try farm.startCoordinator(["--trace", "trace.jsonl"])
        let first = try farm.submit()
        let second = try farm.submit(["--crf", "30"])
        func jobLine(_ id: String) throws -> [String: Any]? {
            let text = (try? String(contentsOfFile: farm.path("trace.jsonl"), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .first { $0["event"] as? String == "job" && $0["job"] as? String == id }
        }
        #expect(try farm.waitUntil(30) { try jobLine(second) != nil })
        // The first submission's uploads were probed by the coordinator's prober or by the
        // submission itself, at most once each (two sources).
        let probedFirst = try #require(try jobLine(first)?["probes"] as? Int)
        #expect((0...2).contains(probedFirst))
        let again = try #require(try jobLine(second))
        #expect(again["probes"] as? Int == 0, "\(again)")
        #expect(again["probeSeconds"] as? Double == 0, "\(again)")
    }
}
