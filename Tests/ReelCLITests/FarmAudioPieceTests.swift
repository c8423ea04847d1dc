import Foundation
import ReelTestSupport
import Testing

/// docs/rendering.md, "Audio in pieces", on a real farm: a worker killed while it renders a
/// piece of the audio track that begins inside a segment loses nothing, and the output is a
/// one-process render's, byte for byte.
@Suite struct FarmAudioPieceTests {
    @Test func aWorkerKilledDuringAMidSegmentAudioPieceLeavesTheOutputIdentical() throws {
        let farm = try FarmFixture()
        // Three 40-s segments at speed 1, a picture of 32×18, 10 frames a second: their sound
        // is cut every 4 s, inside the segments too (28 pieces), and there is little picture.
        let sample = try TestEnvironment.reel(["sample", farm.path("long.mp4"), "--duration", "41", "--size", "32x18", "--fps", "10"])
        try #require(sample.status == 0, "\(sample.stderr)")
        try TestEnvironment.write("""
        {"video": {"renderSize": [32, 18], "frameDuration": {"value": 1, "timescale": 10}, "videoSegments": [
          {"source": "long.mp4", "trimDuration": 40},
          {"source": "long.mp4", "trimStartTime": 0.5, "trimDuration": 40},
          {"source": "long.mp4", "trimStartTime": 1, "trimDuration": 40}
        ]}}
        """, to: "s.json", in: farm.dir)
        try farm.startCoordinator(["--http", "127.0.0.1:0"])
        let base = try farm.apiBase()
        try farm.startWorker("a", ["--test-shard-delay", "1000"])   // each task at least a second: caught running
        let job = try farm.submit()
        let segmentStarts: Set<Int> = [0, 400, 800]

        // The worker's first audio piece that begins inside a segment: killed while it runs.
        func shards() throws -> [[String: Any]] {
            (try HTTPExchange.send("GET", "\(base)/jobs/\(job)/shards").json as? [[String: Any]]) ?? []
        }
        var piece: [String: Any]?
        #expect(try farm.waitUntil(60) {
            piece = try shards().first {
                $0["kind"] as? String == "audio" && $0["state"] as? String == "running"
                    && !segmentStarts.contains(($0["outputStartFrame"] as? Int) ?? 0)
            }
            return piece != nil
        })
        let index = try #require(piece?["index"] as? Int, "\(piece ?? [:])")
        farm.killWorker("a")
        #expect(try shards().first { $0["index"] as? Int == index }?["state"] as? String != "done", "the piece ended before the kill")

        try farm.startWorker("b")
        let fetched = try farm.fetched(job)
        #expect(fetched == (try farm.reference()), "the output differs from a one-process render: \(farm.dir.path)")
        // 28 pieces of sound (every 4 s, none across a segment's start: the piece before holds 4 s of it), all done.
        let audio = try shards().filter { $0["kind"] as? String == "audio" }
        #expect(audio.count == 28 && audio.allSatisfy { $0["state"] as? String == "done" }, "\(audio.map { ($0["outputStartFrame"] ?? 0, $0["state"] ?? "") })")
        #expect(audio.filter { !segmentStarts.contains(($0["outputStartFrame"] as? Int) ?? 0) }.count == 27)
    }
}

/// docs/rendering.md, "Audio in pieces": a one-clip export has no serial step for its
/// sound either. A 12-s single-segment render at 1-s keyframes renders its sound as three
/// attempts (pieces cut inside the segment), and the track has exactly 12 s of samples.
@Suite struct SingleClipAudioTests {
    @Test func aTracedTwelveSecondOneSegmentRenderHasThreeAudioAttempts() throws {
        let farm = try FarmFixture()
        let sample = try TestEnvironment.reel(["sample", farm.path("clip.mp4"), "--duration", "13", "--size", "64x36"])
        try #require(sample.status == 0, "\(sample.stderr)")
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "clip.mp4", "trimDuration": 12}]}}"#, to: "one.json", in: farm.dir)
        let run = try ProcessRunner.run(TestEnvironment.reel, ["render", "one.json", "-o", "out.mp4", "--workers", "2", "--keyframe-interval", "1",
                                                               "--trace", "trace.jsonl"], directory: farm.dir, timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOfFile: farm.path("trace.jsonl"), encoding: .utf8).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let audio = lines.filter { $0["event"] as? String == "attempt" && $0["kind"] as? String == "audio" }
        #expect(audio.count >= 3, "\(audio.count) audio attempts")
        #expect(Set(audio.compactMap { $0["shard"] as? Int }).count >= 3, "three pieces, not one tried three times")
        let ffprobe = try #require(ProcessRunner.which("ffprobe"))
        let samples = try ProcessRunner.run(ffprobe, ["-v", "error", "-select_streams", "a", "-show_entries", "stream=duration_ts",
                                                      "-of", "csv=p=0", farm.path("out.mp4")])
        #expect(samples.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "576000", "\(samples.stdout)")
    }
}
