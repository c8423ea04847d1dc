import Foundation
import ReelTestSupport
import Testing

/// `reel batch`: one template rendered for several sets of media (docs/session-format.md,
/// "Templates"; docs/api.md, "Batches").
@Suite(.serialized) struct BatchCommandTests {
    /// A still pattern whose phase depends on the pixel's place, so a crop that is off
    /// shows; the same in every frame, so any frame of a segment is its oracle's.
    private static let pattern = "geq=lum='128+90*sin(X/37)*cos(Y/23)':cb='128+60*sin(X/71)':cr='128+60*cos(Y/53)'"

    /// A 2-s clip of the pattern (computed once and looped: `geq` is slow), `rotate`
    /// degrees clockwise on screen by its display matrix.
    private func clip(_ fx: RenderFixture, _ name: String, size: String, rotate: Int = 0) throws {
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let plain = rotate == 0 ? name : "plain-" + name
        let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i",
                                                  "nullsrc=size=\(size):rate=30,format=yuv420p,\(Self.pattern),loop=loop=-1:size=1",
                                                  "-frames:v", "60", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "10",
                                                  // Tagged, so the engine and the oracle read the same matrix at every size.
                                                  "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", fx.path(plain)])
        #expect(made.status == 0, "\(made.stderr)")
        guard rotate != 0 else { return }
        // FFmpeg 5.1 writes the display matrix of a `rotate` tag when it copies the stream.
        let tagged = try ProcessRunner.run(ffmpeg, ["-v", "error", "-y", "-i", fx.path(plain), "-c", "copy",
                                                    "-metadata:s:v:0", "rotate=\(rotate)", fx.path(name)])
        #expect(tagged.status == 0, "\(tagged.stderr)")
    }

    /// The template: a shared intro, a cropped landscape segment and a portrait one; three
    /// sets of media of other sizes and orientations; the crop each set's landscape
    /// segment must show, worked out by hand from the rules (centre in proportion, size by
    /// the larger ratio, shrunk about its centre to fit the picture on screen).
    private func fixture(_ name: String = #function) throws -> (RenderFixture, [(name: String, crop: (x: Int, y: Int, w: Int, h: Int))]) {
        let fx = try RenderFixture(name)
        try fx.sample("intro.mp4", ["--duration", "1", "--size", "320x160", "--no-audio"])
        try clip(fx, "land.mp4", size: "640x360")
        try clip(fx, "port.mp4", size: "360x640")
        try clip(fx, "big.mp4", size: "1920x1080")
        try clip(fx, "turned.mp4", size: "1280x720", rotate: 90)
        try clip(fx, "small.mp4", size: "640x480")
        try fx.session("""
        {"video": {"renderSize": [320, 160], "videoSegments": [
          {"source": "intro.mp4"},
          {"source": "land.mp4", "trimStartTime": 0.5, "trimDuration": 1, "cropRect": [[170, 105], [300, 150]]},
          {"source": "port.mp4", "trimDuration": 1}
        ]}}
        """)
        let lines = [
            #"{"name": "big", "replace": {"land.mp4": "big.mp4", "port.mp4": "small.mp4"}}"#,
            #"{"name": "turned", "replace": {"land.mp4": "turned.mp4", "port.mp4": "big.mp4"}}"#,
            "",
            #"{"name": "small", "replace": {"land.mp4": "small.mp4", "port.mp4": "turned.mp4"}}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: fx.path("variants.jsonl"), atomically: true, encoding: .utf8)
        // The crop 300×150 centred at (320, 180) of 640×360:
        //  1920×1080: ratios 3 and 3 → 900×450 centred at (960, 540).
        //  1280×720 turned 90° is 720×1280 on screen: ratios 1.125 and 3.56 → 1066.7×533.3,
        //    wider than 720, shrunk to 720×360, centred at (360, 640).
        //  640×480: ratios 1 and 1.333 → 400×200 centred at (320, 240).
        return (fx, [("big", (510, 315, 900, 450)), ("turned", (0, 460, 720, 360)), ("small", (120, 140, 400, 200))])
    }

    @Test func everyVariantIsItsSingleRenderAndTheIntroRendersOnce() throws {
        let (fx, variants) = try fixture()
        let replacements: [String: [String]] = [
            "big": ["--replace", "land.mp4=big.mp4", "--replace", "port.mp4=small.mp4"],
            "turned": ["--replace", "land.mp4=turned.mp4", "--replace", "port.mp4=big.mp4"],
            "small": ["--replace", "land.mp4=small.mp4", "--replace", "port.mp4=turned.mp4"],
        ]
        for workers in [1, 3] {
            let out = "out-\(workers)"
            let r = try TestEnvironment.reel(["batch", "s.json", "variants.jsonl", "--out-dir", out, "--workers", String(workers),
                                              "--keyframe-interval", "1", "--json", "--trace", "trace-\(workers).jsonl"], in: fx.dir)
            #expect(r.status == 0, "\(r.stderr)")
            let summary = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
            #expect(summary["state"] as? String == "done")
            // The intro is one shard (1 s, keyframes every 1 s), the same in all three:
            // rendered for one variant, its chunk taken by the two others. So is the
            // silent audio track (no source has sound).
            let attempts = try String(contentsOfFile: fx.path("trace-\(workers).jsonl"), encoding: .utf8).split(separator: "\n")
                .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["event"] as? String == "attempt" && $0["outcome"] as? String == "done" }
            let intro = attempts.filter { $0["kind"] as? String == "video" && $0["segment"] as? Int == 0 }
            #expect(intro.count == 3 && intro.filter { $0["reused"] as? Bool == true && $0["worker"] == nil }.count == 2, "\(intro)")
            #expect(summary["reusedShards"] as? Int == 4, "\(summary)")
            #expect((summary["variants"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["big", "turned", "small"])
        }
        for (name, crop) in variants {
            // A single render of the variant is the batch's output, byte for byte, with 1 and 3 workers.
            let single = try TestEnvironment.reel(["render", "s.json", "-o", "single-\(name).mp4", "--keyframe-interval", "1"]
                                                  + (replacements[name] ?? []), in: fx.dir)
            #expect(single.status == 0, "\(single.stderr)")
            let expected = try Data(contentsOf: URL(fileURLWithPath: fx.path("single-\(name).mp4")))
            for workers in [1, 3] {
                #expect(try Data(contentsOf: URL(fileURLWithPath: fx.path("out-\(workers)/\(name).mp4"))) == expected, "\(name), \(workers) workers")
                #expect(try Data(contentsOf: URL(fileURLWithPath: fx.path("out-\(workers)/\(name).reel.json")))
                        == Data(contentsOf: URL(fileURLWithPath: fx.path("single-\(name).reel.json"))))
            }
            let video = try #require(try FFprobe.streams(fx.path("out-3/\(name).mp4")).first { $0.codecType == "video" })
            #expect(video.width == 320 && video.height == 160 && video.frameCount == 90, "\(name): \(video)")
            // The landscape segment (frames 30 … 59) against its oracle: ffmpeg's own reading
            // of the source (its display matrix applied), cropped by hand and scaled.
            let source = try #require(replacements[name]?[1].split(separator: "=").last.map(String.init))
            let oracle = try oracleFrame(fx.path(source), crop: crop)
            let frame = try DecodedMedia.rgbFrame(fx.path("out-3/\(name).mp4"), index: 45, width: 320, height: 160)
            let psnr = Measure.psnr(frame, oracle)
            #expect(psnr > 30, "\(name): PSNR \(psnr) dB against the hand-computed crop")
            // And it is not any other crop: the uncropped picture is far from it.
            let uncropped = try oracleFrame(fx.path(source), crop: nil)
            #expect(Measure.psnr(frame, uncropped) < psnr - 6, "\(name): the crop is not visible")
        }
    }

    /// One frame of `source` as ffmpeg shows it, cropped to `crop` (or whole) and scaled to 320×160.
    private func oracleFrame(_ source: String, crop: (x: Int, y: Int, w: Int, h: Int)?) throws -> [UInt8] {
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let cut = crop.map { "crop=\($0.w):\($0.h):\($0.x):\($0.y)," } ?? ""
        let r = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", source, "-frames:v", "1",
                                               "-vf", "\(cut)scale=320:160:flags=bicubic+accurate_rnd+full_chroma_int+full_chroma_inp",
                                               "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        return [UInt8](r.stdoutData)
    }

    @Test func badVariantsExitTwoNamingTheLineBeforeAnythingRenders() throws {
        let fx = try RenderFixture(#function)
        try fx.sample("land.mp4", ["--duration", "2", "--size", "320x180", "--no-audio"])
        try fx.sample("short.mp4", ["--duration", "1", "--size", "320x180", "--no-audio"])
        try fx.session(#"{"video": {"videoSegments": [{"source": "land.mp4", "trimStartTime": 1.5, "trimDuration": 0.5}]}}"#)
        let cases: [(String, [String])] = [
            ("{\"name\": \"a\", \"replace\": {\"land.mp4\": \"short.mp4\"}}\n{\"name\": \"b\", \"replace\": {\"land.mp4\": \n",
             ["variants.jsonl: line 2: not JSON"]),
            (#"{"name": "a", "replace": {"other.mp4": "short.mp4"}}"#, ["line 1 (a)", "'other.mp4' is not a source of the session"]),
            (#"{"name": "a", "replace": {"land.mp4": "gone.mp4"}}"#, ["line 1 (a)", "gone.mp4"]),
            ("\n" + #"{"name": "late", "replace": {"land.mp4": "short.mp4"}}"#,
             ["line 2 (late)", "video.videoSegments[0].trimStartTime", "1.5", "1.0 s long", "2.0 s"]),
            (#"{"name": "a", "replace": {"land.mp4": "short.mp4"}, "extra": 1}"#, ["line 1: unknown key 'extra'"]),
            (#"{"name": "../a", "replace": {"land.mp4": "short.mp4"}}"#, ["line 1: name: '../a' is not a name"]),
            ("{\"name\": \"a\", \"replace\": {\"land.mp4\": \"land.mp4\"}}\n{\"name\": \"a\", \"replace\": {\"land.mp4\": \"land.mp4\"}}",
             ["line 2: name 'a' is also on line 1"]),
        ]
        for (text, messages) in cases {
            try text.write(toFile: fx.path("variants.jsonl"), atomically: true, encoding: .utf8)
            let r = try TestEnvironment.reel(["batch", "s.json", "variants.jsonl", "--out-dir", "out"], in: fx.dir)
            #expect(r.status == 2, "\(text): \(r.stderr)")
            for message in messages { #expect(r.stderr.contains(message), "\(text): \(r.stderr)") }
            #expect(!FileManager.default.fileExists(atPath: fx.path("out")), "\(text): something was written")
        }
    }
}
