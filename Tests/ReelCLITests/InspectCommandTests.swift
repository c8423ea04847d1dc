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
