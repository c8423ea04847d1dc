import Foundation
import ReelTestSupport
import Testing

/// Frame counts, durations and frame selection read back from rendered files (docs/timeline.md).
@Suite struct RenderTimingTests {
    struct Segment {
        var source: String
        var sourceFPS: Double
        var trimStart: Double
        var trimDuration: Double
        var speed: Double
    }

    static let segments = [
        Segment(source: "f30.mp4", sourceFPS: 30, trimStart: 0.5, trimDuration: 1, speed: 0.5),
        Segment(source: "f30.mp4", sourceFPS: 30, trimStart: 1, trimDuration: 1, speed: 1),
        Segment(source: "f30.mp4", sourceFPS: 30, trimStart: 0, trimDuration: 2, speed: 2),
        Segment(source: "f30.mp4", sourceFPS: 30, trimStart: 0.2, trimDuration: 3, speed: 3),
        Segment(source: "f24.mp4", sourceFPS: 24, trimStart: 0.25, trimDuration: 1, speed: 1),
        Segment(source: "f60.mp4", sourceFPS: 60, trimStart: 1, trimDuration: 1, speed: 1),
    ]

    @Test(arguments: [(30.0, 1.0), (24.0, 1.0), (30.0, 1.5)])
    func everyOutputFrameShowsTheSourceFrameOnScreen(outputFPS: Double, videoSpeed: Double) throws {
        let fx = try RenderFixture("selection\(Int(outputFPS))-\(videoSpeed)")
        for fps in [24, 30, 60] {
            try fx.sample("f\(fps).mp4", ["--duration", "4", "--size", "96x64", "--fps", String(fps), "--pattern", "frame-index"])
        }
        let segmentJSON = Self.segments.map {
            #"{"source": "\#($0.source)", "trimStartTime": \#($0.trimStart), "trimDuration": \#($0.trimDuration), "speedMultiplier": \#($0.speed)}"#
        }.joined(separator: ",")
        try fx.session(#"{"video": {"frameDuration": {"value": 1, "timescale": \#(Int(outputFPS))}, "speedMultiplier": \#(videoSpeed), "videoSegments": [\#(segmentJSON)]}}"#)
        let out = try fx.rendered()

        // Expected, from docs/timeline.md alone: n = floor(R·F + 1/2); frame k shows floor((t + 1 ms)·fps).
        var expected: [Int] = []
        for s in Self.segments {
            let v = s.speed * videoSpeed
            let n = Int((s.trimDuration / v * outputFPS + 0.5).rounded(.down))
            for k in 0..<n {
                let t = s.trimStart + Double(k) * v / outputFPS
                expected.append(min(Int(((t + 0.001) * s.sourceFPS).rounded(.down)), Int(4 * s.sourceFPS) - 1))
            }
        }
        let video = try #require(try FFprobe.streams(out).first { $0.codecType == "video" })
        #expect(video.frameCount == expected.count)
        #expect(abs((video.duration ?? 0) - Double(expected.count) / outputFPS) < 0.001)
        let frames = try DecodedMedia.yuvFrames(out, width: 96, height: 64)
        let seen = frames.map { frameIndex(ofYUV: $0, width: 96, height: 64) }
        #expect(seen.count == expected.count)
        let mismatches = zip(seen, expected).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(mismatches.isEmpty, "first mismatches (output frame, seen, expected): \(mismatches.prefix(5).map { ($0.offset, $0.element.0, $0.element.1) })")
    }

    @Test func rendersAreByteIdenticalAcrossWorkerCountsAndRuns() throws {
        let fx = try RenderFixture()
        try fx.sample("a.mp4", ["--duration", "5", "--size", "160x96"])
        try fx.sample("p.mp4", ["--duration", "3", "--size", "160x96", "--rotate", "90", "--tone", "660"])
        try fx.session("""
        {"video": {"renderSize": [160, 96], "filters": [{"type": "contrast", "normalizedIntensity": 0.3}], "videoSegments": [
          {"source": "a.mp4", "trimStartTime": 0.2, "trimDuration": 4.5},
          {"source": "p.mp4", "speedMultiplier": 0.5, "trimDuration": 2},
          {"source": "a.mp4", "speedMultiplier": 2, "trimDuration": 3, "filters": [{"type": "saturation", "normalizedIntensity": 0.5}]}
        ]}}
        """)
        let one = try Data(contentsOf: URL(fileURLWithPath: try fx.rendered(to: "w1.mp4", ["--workers", "1"])))
        let threeRun = try fx.render(to: "w3.mp4", ["--workers", "3", "--json"])
        #expect(threeRun.status == 0, "\(threeRun.stderr)")
        let three = try Data(contentsOf: URL(fileURLWithPath: fx.path("w3.mp4")))
        // The summary of a farm render: every shard accounted for, by the worker that made
        // it or as reused.
        let summary = try JSONSerialization.jsonObject(with: threeRun.stdoutData) as? [String: Any]
        #expect(summary?["frames"] as? Int == 300 && summary?["workers"] as? Int == 3)
        let perWorker = summary?["shardsPerWorker"] as? [String: Int] ?? [:]
        #expect(perWorker.values.reduce(0, +) + (summary?["reusedShards"] as? Int ?? -1) == summary?["shards"] as? Int)
        #expect((summary?["sidecar"] as? String)?.hasSuffix("w3.reel.json") == true)
        // Again, on two threads of one process: the same bytes, and where its time went.
        let inProcess = try fx.render(to: "again.mp4", ["--workers", "2", "--in-process", "--json"])
        #expect(inProcess.status == 0, "\(inProcess.stderr)")
        let again = try Data(contentsOf: URL(fileURLWithPath: fx.path("again.mp4")))
        let local = try JSONSerialization.jsonObject(with: inProcess.stdoutData) as? [String: Any]
        let phases = local?["phaseSeconds"] as? [String: Double] ?? [:]
        #expect(Set(phases.keys) == ["decode", "picture", "encode"] && phases.values.allSatisfy { $0 > 0 }, "\(phases)")
        // Summed over two threads, the phases cannot exceed twice the render's wall time.
        #expect(phases.values.reduce(0, +) <= 2 * (local?["seconds"] as? Double ?? 0))
        // Slow motion repeats source frames: fewer are processed than written.
        let processed = local?["sourceFramesProcessed"] as? Int ?? 0
        #expect(processed > 0 && processed < 300, "\(processed)")
        #expect(one == three)
        #expect(one == again)
        // 4.5 s + 4 s + 1.5 s at 30 fps, several shards of 2-second GOPs.
        #expect(try FFprobe.streams(fx.path("w1.mp4")).first { $0.codecType == "video" }?.frameCount == 300)
    }

    @Test func outputPlaysCleanlyWithAudioOfTheRightLength() throws {
        let fx = try RenderFixture()
        try fx.sample("a.mp4", ["--duration", "3", "--size", "128x96"])
        try fx.sample("silent.mp4", ["--duration", "2", "--size", "128x96", "--no-audio", "--fps", "25"])
        try fx.session(#"{"video": {"videoSegments": [{"source": "a.mp4", "trimDuration": 1.3}, {"source": "silent.mp4", "trimStartTime": 0.5}, {"source": "a.mp4", "speedMultiplier": 4}]}}"#)
        let out = try fx.rendered()
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let check = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", out, "-f", "null", "-"])
        #expect(check.status == 0 && check.stderr.isEmpty, "\(check.stderr)")
        let streams = try FFprobe.streams(out)
        let video = try #require(streams.first { $0.codecType == "video" })
        let audio = try #require(streams.first { $0.codecType == "audio" })
        // 39 + 45 + floor(3/4·30 + 1/2) = 23 frames at the first clip's 30 fps.
        #expect(video.frameCount == 107)
        #expect(audio.codecName == "aac" && audio.sampleRate == 48000 && audio.channels == 2)
        #expect(abs((audio.duration ?? 0) - (video.duration ?? 0)) <= 1.0 / 30)
    }

    /// A variable-frame-rate clip (a 30 fps phone clip that dropped frames 10…19 in low
    /// light: nominal 30 fps, average 25): rendered at its nominal rate, each output frame
    /// shows the source frame on screen then — frame 9 while the gap lasts.
    @Test func aVariableFrameRateClipRendersAtItsNominalRateShowingTheFrameOnScreen() throws {
        let fx = try RenderFixture()
        try fx.sample("cfr.mp4", ["--duration", "2", "--size", "96x64", "--fps", "30", "--pattern", "frame-index", "--no-audio"])
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", fx.path("cfr.mp4"), "-vf", "select='not(between(n,10,19))'",
                                                  "-fps_mode", "vfr", "-c:v", "libx264", "-crf", "10", fx.path("vfr.mp4")])
        try #require(made.status == 0, "\(made.stderr)")
        try fx.session(#"{"video": {"videoSegments": [{"source": "vfr.mp4"}]}}"#)
        let out = try fx.rendered()
        let frames = try DecodedMedia.yuvFrames(out, width: 96, height: 64)
        let seen = frames.map { frameIndex(ofYUV: $0, width: 96, height: 64) }
        let expected = (0..<60).map { (10...19).contains($0) ? 9 : $0 }
        #expect(seen == expected, "seen \(seen)")
    }

    /// Sources whose decode order, container clock or edit list differ from their
    /// presentation: B-frames (a decoder delay of 2 frames, hidden by an edit list), an MP4
    /// cut with `-c copy` at 0.5 s (an edit list that starts mid-GOP: the first 15 coded
    /// frames are not shown), and MPEG-TS whose first frame is at 8.7 s (no index: seeks
    /// bisect the file). For each, the whole clip and a trim from 0.8 s show exactly the
    /// frames ffmpeg's own decode of the source shows, in order, for 1 and 2 workers.
    @Test(arguments: ["bframes.mp4", "editlist.mp4", "offset.ts"])
    func sourcesWithDelaysEditListsAndOffsetClocksShowTheFramesFFmpegShows(kind: String) throws {
        let fx = try RenderFixture()
        try fx.sample("fi.mp4", ["--duration", "2", "--size", "96x64", "--pattern", "frame-index", "--no-audio"])
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let encode = ["-c:v", "libx264", "-preset", "medium", "-bf", "3", "-crf", "10", "-g", "30"]
        let commands: [[String]] = switch kind {
        case "bframes.mp4": [["-i", fx.path("fi.mp4")] + encode + [fx.path(kind)]]
        case "editlist.mp4": [["-i", fx.path("fi.mp4")] + encode + [fx.path("b.mp4")],
                              ["-ss", "0.5", "-i", fx.path("b.mp4"), "-c", "copy", fx.path(kind)]]
        default: [["-i", fx.path("fi.mp4")] + encode + ["-output_ts_offset", "7.3", "-f", "mpegts", fx.path(kind)]]
        }
        for command in commands {
            let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-y"] + command)
            try #require(made.status == 0, "\(made.stderr)")
        }
        let shown = try DecodedMedia.yuvFrames(fx.path(kind), width: 96, height: 64).map { frameIndex(ofYUV: $0, width: 96, height: 64) }
        try #require(shown.count == (kind == "editlist.mp4" ? 45 : 60), "ffmpeg shows \(shown.count) frames")
        try fx.session("""
            {"video": {"videoSegments": [{"source": "\(kind)"}, {"source": "\(kind)", "trimStartTime": 0.8, "trimDuration": 0.5}]}}
            """)
        let expected = shown + shown[24..<39]
        for workers in ["1", "2"] {
            let out = try fx.rendered(to: "out-\(workers).mp4", ["--no-audio", "--workers", workers])
            let seen = try DecodedMedia.yuvFrames(out, width: 96, height: 64).map { frameIndex(ofYUV: $0, width: 96, height: 64) }
            #expect(seen == Array(expected), "\(kind), \(workers) workers: seen \(seen)")
        }
    }
}
