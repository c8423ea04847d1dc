import Foundation
import ReelTestSupport
import Testing

@Suite struct InspectCommandTests {
    @Test func jsonTimelineOfAMultiSegmentSession() throws {
        let dir = try Scratch.withClip()
        let portrait = try TestEnvironment.reel(["sample", dir.appendingPathComponent("portrait.mp4").path,
                                                 "--duration", "2", "--size", "320x240", "--rotate", "90", "--fps", "24"])
        #expect(portrait.status == 0)
        try TestEnvironment.write("""
        {"video": {"videoSegments": [
          {"source": "clip.mp4", "trimStartTime": 0.5, "trimDuration": 1, "speedMultiplier": 2},
          {"source": "portrait.mp4", "trimDuration": 1.5, "speedMultiplier": 0.5}
        ]}}
        """, to: "s.json", in: dir)
        let result = try TestEnvironment.reel(["inspect", "s.json", "--json"], in: dir)
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        // 30 fps from the first clip; 320×240 from its picture.
        #expect(json["renderSize"] as? [Int] == [320, 240])
        #expect(json["frameRate"] as? Double == 30)
        // 1 s at 2× = 15 frames; 1.5 s at 0.5× = 90 frames.
        #expect(json["totalFrames"] as? Int == 105)
        #expect(json["duration"] as? Double == 3.5)
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(segments.map { $0["frameCount"] as? Int } == [15, 90])
        #expect(segments.map { $0["outputStartFrame"] as? Int } == [0, 15])
        #expect(segments[0]["firstSourceTime"] as? Double == 0.5)
        // Frame 14 at 2× is 14·2/30 s after the start.
        #expect(abs((segments[0]["lastSourceTime"] as? Double ?? 0) - (0.5 + 28.0 / 30)) < 1e-9)
        // The portrait clip is 240×320 once oriented; the 4:3 crop is centred: 240 wide, 180 high.
        #expect(segments[1]["actualSize"] as? [Double] == [240, 320])
        #expect(segments[1]["cropRect"] as? [[Double]] == [[0, 70], [240, 180]])
        // The farm's plan at 2-s keyframe intervals (60 frames): the 3.5 s of sound one
        // piece, then each segment's video in shards of at most 2 GOPs (a tail under half a
        // GOP joins the shard before it): 15 frames, then 90.
        let shards = try #require(json["shards"] as? [[String: Any]])
        #expect(shards.map { $0["kind"] as? String } == ["audio", "video", "video"])
        #expect(shards.first?["audioFrames"] as? Int == 105)
        let video = shards.filter { $0["kind"] as? String == "video" }
        #expect(video.map { $0["frames"] as? Int } == [15, 90], "\(video)")
        #expect(video.map { $0["outputStartFrame"] as? Int } == [0, 15])
    }

    /// How each segment's Y′CbCr is read: the declared matrix, else players' guess by height
    /// (docs/rendering.md, "Colour conversion").
    @Test func eachSegmentSaysHowItsColoursAreRead() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        for (name, size, tags) in [("sd.mp4", "320x240", [String]()), ("hd.mp4", "1280x720", []),
                                   ("tagged.mp4", "320x240", ["-colorspace", "bt709", "-chroma_sample_location", "topleft"])] {
            let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30:duration=0.2",
                                                      "-pix_fmt", "yuv420p", "-c:v", "libx264"] + tags
                                                      + [dir.appendingPathComponent(name).path])
            try #require(made.status == 0, "\(made.stderr)")
        }
        try TestEnvironment.write("""
        {"video": {"videoSegments": [{"source": "sd.mp4"}, {"source": "hd.mp4"}, {"source": "tagged.mp4"}]}}
        """, to: "s.json", in: dir)
        let result = try TestEnvironment.reel(["inspect", "s.json", "--json"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(segments.map { $0["matrix"] as? String } == ["bt601 (assumed)", "bt709 (assumed)", "bt709"])
        #expect(segments.map { $0["chromaLocation"] as? String } == ["left", "left", "topleft"])
        let text = try TestEnvironment.reel(["inspect", "s.json"], in: dir)
        #expect(text.stdout.contains("Y′CbCr bt601 (assumed), chroma left"))
    }

    @Test func invalidSessionIsNotInspected() throws {
        let dir = try Scratch.withClip()
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "clip.mp4", "speedMultiplier": 0}]}}"#, to: "s.json", in: dir)
        let result = try TestEnvironment.reel(["inspect", "s.json"], in: dir)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("video.videoSegments[0].speedMultiplier"))
    }
}
