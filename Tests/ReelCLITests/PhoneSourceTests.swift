import Foundation
import ReelTestSupport
import Testing

/// Phone footage as phones record it (docs/rendering.md, "A shard's cores"): a 4K HEVC
/// Main 10 source renders frame-exact, and 1 and 3 workers — each shard's source decoded
/// on frame threads — write the same bytes.
@Suite struct PhoneSourceTests {
    @Test func a4KHEVC10BitSourceRendersFrameExactWithAnyNumberOfWorkers() throws {
        let fx = try RenderFixture()
        // Each frame's flat colours say its index (`--pattern frame-index`), made 4K HEVC
        // 10-bit by x265: 45 frames at 30 fps, keyframes every 15.
        try fx.sample("index.mp4", ["--duration", "1.5", "--size", "320x180", "--fps", "30", "--pattern", "frame-index"])
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-y", "-i", fx.path("index.mp4"), "-vf", "scale=3840:2160",
                                                  "-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le",
                                                  "-x265-params", "log-level=error:keyint=15", "-tag:v", "hvc1", "-c:a", "copy",
                                                  fx.path("phone.mp4")])
        try #require(made.status == 0, "\(made.stderr)")
        let source = try #require(try FFprobe.streams(fx.path("phone.mp4")).first { $0.codecType == "video" })
        #expect(source.codecName == "hevc" && source.width == 3840 && source.height == 2160)
        try fx.session(#"{"video": {"renderSize": [640, 360], "videoSegments": [{"source": "phone.mp4"}]}}"#)
        // 0.5-s keyframe intervals: 2 video shards (30 + 15 frames), the second starting
        // mid-way between two of the source's keyframes.
        let one = try fx.rendered(to: "one.mp4", ["--workers", "1", "--keyframe-interval", "0.5"])
        let three = try fx.rendered(to: "three.mp4", ["--workers", "3", "--keyframe-interval", "0.5"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: one)) == Data(contentsOf: URL(fileURLWithPath: three)),
                "1 and 3 workers wrote different files")
        let ffprobe = try #require(ProcessRunner.which("ffprobe"))
        let counted = try ProcessRunner.run(ffprobe, ["-v", "error", "-select_streams", "v", "-count_frames", "-show_entries",
                                                      "stream=nb_read_frames,pix_fmt,width,height", "-of", "json", one])
        let stream = try #require(((try JSONSerialization.jsonObject(with: counted.stdoutData) as? [String: Any])?["streams"]
            as? [[String: Any]])?.first)
        #expect(stream["nb_read_frames"] as? String == "45", "\(stream)")
        #expect(stream["pix_fmt"] as? String == "yuv420p" && stream["width"] as? Int == 640 && stream["height"] as? Int == 360)
        // Every output frame is the source frame of its index: first, last and all between.
        let frames = try DecodedMedia.yuvFrames(one, width: 640, height: 360)
        let indices = frames.map { frameIndex(ofYUV: $0, width: 640, height: 360) }
        #expect(indices == Array(0..<45), "frames \(indices)")
    }
}
