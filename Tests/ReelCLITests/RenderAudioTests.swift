import Foundation
import ReelTestSupport
import Testing

/// The audio track (docs/timeline.md): AAC 48 kHz stereo, pitch kept through speed changes,
/// silence where a source has none, no click where segments meet.
@Suite struct RenderAudioTests {
    @Test(arguments: [2.0, 0.5])
    func toneKeepsItsPitchAtAnySpeed(speed: Double) throws {
        let fx = try RenderFixture("tone\(speed)")
        try fx.sample("t.mp4", ["--duration", "3", "--size", "64x48", "--tone", "440"])
        try fx.session(#"{"video": {"videoSegments": [{"source": "t.mp4", "trimStartTime": 0.5, "trimDuration": 2, "speedMultiplier": \#(speed)}]}}"#)
        let out = try fx.rendered()
        let samples = try DecodedMedia.monoSamples(out)
        let seconds = 2 / speed
        #expect(abs(Double(samples.count) / 48000 - seconds) <= 1.0 / 30 + 0.03)
        let middle = Array(samples[(samples.count / 4)..<(samples.count / 4 + 24000)])
        let peak = Measure.dominantFrequency(middle, sampleRate: 48000, low: 300, high: 600)
        #expect(abs(peak - 440) <= 3, "dominant frequency \(peak) Hz")
    }

    @Test func noAudioWritesVideoOnlyAndTheBitRateIsTheOneAsked() throws {
        let fx = try RenderFixture()
        try fx.sample("t.mp4", ["--duration", "3", "--size", "64x48", "--tone", "440"])
        try fx.session(#"{"video": {"videoSegments": [{"source": "t.mp4"}]}}"#)
        let silent = try fx.rendered(to: "silent.mp4", ["--no-audio"])
        #expect(try FFprobe.streams(silent).map(\.codecType) == ["video"])
        let low = try fx.rendered(to: "low.mp4", ["--audio-bitrate", "64"])
        let ffprobe = try #require(ProcessRunner.which("ffprobe"))
        let rate = try ProcessRunner.run(ffprobe, ["-v", "error", "-select_streams", "a", "-show_entries", "stream=bit_rate",
                                                   "-of", "csv=p=0", low]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let bits = try #require(Double(rate))
        #expect(abs(bits - 64_000) < 6_400, "\(bits) b/s for --audio-bitrate 64")
        let refused = try fx.render(to: "bad.mp4", ["--audio-bitrate", "5"])
        #expect(refused.status == 2 && refused.stderr.contains("--audio-bitrate 5 kb/s is outside 32 … 512"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fx.path("bad.mp4")))
    }

    /// A click 1 s into the source, in an audio stream that starts 0.5 s after the video:
    /// it lands where its frame does, `(1 − trimStart) / speed` into the output.
    @Test(arguments: [1.0, 2.0])
    func lateStartingAudioStaysOnTheVideosClock(speed: Double) throws {
        let fx = try RenderFixture("late-audio-\(speed)")
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let made = try ProcessRunner.run(ffmpeg, [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=30:duration=2",
            "-itsoffset", "0.5", "-f", "lavfi", "-i", "aevalsrc='if(between(t,0.5,0.503),0.9,0)':s=48000:d=1.5",
            "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-c:a", "pcm_s16le", fx.path("late.mov"),
        ])
        try #require(made.status == 0, "\(made.stderr)")
        try fx.session(#"{"video": {"videoSegments": [{"source": "late.mov", "trimStartTime": 0.25, "speedMultiplier": \#(speed)}]}}"#)
        let samples = try DecodedMedia.monoSamples(try fx.rendered())
        let click = try #require(samples.firstIndex { abs($0) > 0.3 }, "no click in the output")
        let expected = (1 - 0.25) / speed
        #expect(abs(Double(click) / 48000 - expected) < 0.015, "click at \(Double(click) / 48000) s, its frame at \(expected) s")
        // Before the source's audio begins (0.5 s on its clock): silence, not the sound moved early.
        #expect(samples[0..<Int(0.2 / speed * 48000)].allSatisfy { abs($0) < 0.01 })
    }

    /// Any layout becomes stereo (docs/timeline.md): a 5.1 source's centre at −3 dB in both
    /// sides and its front left in the left only; 44.1 kHz mono duplicated at full level.
    @Test func channelLayoutsBecomeStereoWithTheStandardCoefficients() throws {
        let fx = try RenderFixture()
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let tone = "0.5*sin(2*PI*440*t)"
        let sources = [
            ("centre.mov", "aevalsrc='0|0|\(tone)|0|0|0':s=48000:d=2:c=5.1", (0.5 * 0.7071, 0.5 * 0.7071)),
            ("left.mov", "aevalsrc='\(tone)|0|0|0|0|0':s=48000:d=2:c=5.1", (0.5, 0.0)),
            ("mono.mov", "aevalsrc='\(tone)':s=44100:d=2", (0.5, 0.5)),
        ]
        for (name, audio, (left, right)) in sources {
            let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=30:duration=2",
                                                      "-f", "lavfi", "-i", audio, "-map", "0:v", "-map", "1:a",
                                                      "-c:v", "libx264", "-c:a", "pcm_s16le", fx.path(name)])
            try #require(made.status == 0, "\(made.stderr)")
            try fx.session(#"{"video": {"videoSegments": [{"source": "\#(name)"}]}}"#)
            let out = try fx.rendered(to: name + ".mp4")
            let decoded = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", out, "-f", "f32le", "-ac", "2", "-"])
            let samples = decoded.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let middle = (24_000..<72_000)
            let peakLeft = middle.map { abs(samples[2 * $0]) }.max() ?? 0
            let peakRight = middle.map { abs(samples[2 * $0 + 1]) }.max() ?? 0
            #expect(abs(Double(peakLeft) - left) < 0.025 && abs(Double(peakRight) - right) < 0.025,
                    "\(name): peaks \(peakLeft), \(peakRight); expected \(left), \(right)")
        }
    }

    @Test func silentSegmentsAndCleanJoins() throws {
        let fx = try RenderFixture()
        try fx.sample("a.mp4", ["--duration", "2", "--size", "64x48", "--tone", "440"])
        try fx.sample("b.mp4", ["--duration", "2", "--size", "64x48", "--tone", "660"])
        try fx.sample("quiet.mp4", ["--duration", "2", "--size", "64x48", "--no-audio"])
        try fx.session(#"{"video": {"videoSegments": [{"source": "a.mp4", "trimDuration": 1}, {"source": "b.mp4", "trimDuration": 1}, {"source": "quiet.mp4", "trimDuration": 1}]}}"#)
        let out = try fx.rendered()
        let streams = try FFprobe.streams(out)
        let audio = try #require(streams.first { $0.codecType == "audio" })
        #expect(audio.codecName == "aac" && audio.sampleRate == 48000 && audio.channels == 2)
        let samples = try DecodedMedia.monoSamples(out)
        #expect(abs(Double(samples.count) / 48000 - 3) < 0.03)
        // Second 1 is 660 Hz; second 2 is silence.
        #expect(abs(Measure.dominantFrequency(Array(samples[54000..<78000]), sampleRate: 48000, low: 300, high: 800) - 660) <= 3)
        let tail = samples[(2 * 48000 + 2400)..<(3 * 48000 - 2400)]
        #expect(tail.map { abs($0) }.max() ?? 1 < 0.01)
        // Around the join at 1 s, no step larger than the tones' own slope (a hard cut jumps up to 1.0).
        let join = samples[(48000 - 480)..<(48000 + 480)]
        let steps = zip(join.dropFirst(), join).map { abs($0 - $1) }
        #expect(steps.max() ?? 1 < 0.12, "largest step \(steps.max() ?? -1)")
    }
}
