import Foundation
import ReelTestSupport
import SessionKit
import Testing
@testable import RenderEngine

/// The audio track rendered in pieces and joined (docs/rendering.md, "Audio in pieces")
/// is the same track encoded in one go, packet for packet,
/// with no seam at a join; the farm gives the same bytes with 1 and 3 workers.
@Suite struct AudioSeamTests {
    enum Sound: String, CaseIterable {
        /// A steady 440 Hz tone: any discontinuity at a join shows as broadband error.
        case tone
        /// Pink noise under a syllable-rate envelope (4 Hz, with pauses): transients and
        /// silences, as speech has.
        case speech
        /// The tone recorded at 44.1 kHz: the cut inside a segment resamples on the
        /// one-go render's grid (docs/rendering.md, "Audio in pieces").
        case tone44k

        var lavfi: String {
            switch self {
            case .tone: "sine=frequency=440:sample_rate=48000:duration=24,volume=0.5,aformat=channel_layouts=stereo"
            case .tone44k: "sine=frequency=440:sample_rate=44100:duration=24,volume=0.5,aformat=channel_layouts=stereo"
            case .speech:
                "anoisesrc=color=pink:sample_rate=48000:duration=24:seed=7:amplitude=0.6,"
                    + "volume='0.2+0.8*max(0,sin(2*PI*4*t))*gt(sin(2*PI*0.7*t),-0.5)':eval=frame,aformat=channel_layouts=stereo"
            }
        }
    }

    /// Four segments at speeds 0.5, 1, 1.5 and 2, each a little over 10 s on the output:
    /// the stretched ones whole, the one at speed 1 cut inside as well: four pieces, three
    /// joins, one of them inside a segment.
    static let session = #"""
    {"video": {"renderSize": [64, 36], "frameDuration": {"value": 1, "timescale": 30}, "videoSegments": [
      {"source": "s.mp4", "trimStartTime": 1, "trimDuration": 5.4, "speedMultiplier": 0.5},
      {"source": "s.mp4", "trimStartTime": 2, "trimDuration": 10.6},
      {"source": "s.mp4", "trimStartTime": 0.5, "trimDuration": 16.2, "speedMultiplier": 1.5},
      {"source": "s.mp4", "trimStartTime": 0.3, "trimDuration": 21.4, "speedMultiplier": 2}
    ]}}
    """#

    @Test(arguments: Sound.allCases)
    func piecesJoinWithoutASeamAndAnyWorkerCountGivesTheSameBytes(sound: Sound) throws {
        let dir = try TestEnvironment.scratchDirectory("audio-seam-\(sound.rawValue)")
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let made = try ProcessRunner.run(ffmpeg, [
            "-v", "error", "-f", "lavfi", "-i", "color=c=gray:size=64x36:rate=30:duration=24", "-f", "lavfi", "-i", sound.lavfi,
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-c:a", "aac", "-b:a", "256k", "-shortest",
            dir.appendingPathComponent("s.mp4").path,
        ])
        try #require(made.status == 0, "\(made.stderr)")
        let sessionPath = try TestEnvironment.write(Self.session, to: "s.json", in: dir)

        // The plan: four pieces, cut at two segment boundaries and inside the segment at
        // speed 1 (whose piece then runs on through the stretched one after it).
        let loaded = try LoadedSession.load(path: sessionPath, looks: nil)
        let timeline = try loaded.timeline()
        let pieces = AudioPieces.plan(timeline.segments, frameDuration: timeline.frameDuration)
        #expect(pieces.map(\.segment) == [0, 1, 1, 3])
        let starts = Set(timeline.segments.map(\.outputStartFrame))
        #expect(pieces.map { starts.contains($0.startFrame) } == [true, true, false, true], "one cut inside a segment")

        // The samples the encoder is given, and the whole track encoded from them in one go.
        let renderer = AudioTrackRenderer(timeline: timeline)
        let sources = Dictionary(uniqueKeysWithValues: timeline.segments.map { ($0.index, MediaInput.file(dir.appendingPathComponent("s.mp4").path)) })
        let samples = SampleBuffer()
        try renderer.render(sources: sources, into: samples)
        let reference = dir.appendingPathComponent("one.m4a").path
        try renderer.render(sources: sources, to: reference)

        var outputs: [Data] = []
        for workers in [1, 3] {
            let name = "out\(workers).mp4"
            let result = try TestEnvironment.reel(["render", "s.json", "-o", name, "--workers", "\(workers)"], in: dir)
            try #require(result.status == 0, "\(result.stderr)")
            outputs.append(try Data(contentsOf: dir.appendingPathComponent(name)))
        }
        #expect(outputs[0] == outputs[1], "1 and 3 workers give different bytes")

        // As long as the track in one go, to the sample.
        let total = Int(AudioPieces.sample(ofFrame: timeline.totalFrames, frameDuration: timeline.frameDuration))
        #expect(samples.left.count == total)
        let joinedPath = dir.appendingPathComponent("out1.mp4").path
        #expect(try Self.audioDuration(joinedPath) == "\(total)")
        // Packets of 1,024 samples, joins included; only the last is shorter.
        let ffprobe = try #require(ProcessRunner.which("ffprobe"))
        let durations = try ProcessRunner.run(ffprobe, ["-v", "error", "-select_streams", "a", "-show_entries", "packet=duration",
                                                        "-of", "csv=p=0", joinedPath]).stdout.split(separator: "\n")
            .map { $0.split(separator: ",").first.map(String.init) ?? "" }   // the first packet's line ends with its side data
        #expect(durations.dropLast().allSatisfy { $0 == "1024" }, "\(Set(durations))")

        let pcm = samples.left[...]
        let one = try Self.pcm(reference, ffmpeg: ffmpeg)[..<total]
        let joined = try Self.pcm(joinedPath, ffmpeg: ffmpeg)[..<total]
        // No worse than in one go over the whole track, and close to it.
        let wholeJoined = Self.snr(pcm, joined), wholeOne = Self.snr(pcm, one)
        #expect(wholeJoined >= wholeOne - 0.5, "the joined track \(wholeJoined) dB from its samples, in one go \(wholeOne) dB")
        // At each join, a 20-ms window no worse than the same window in one go.
        let window = 960
        let layouts = pieces.map {
            AudioPieceLayout(frames: $0.startFrame..<$0.endFrame, totalFrames: timeline.totalFrames, frameDuration: timeline.frameDuration,
                             segmentStarts: starts)
        }
        for layout in layouts.dropFirst() {
            let join = Int((layout.firstPacket - 1) * AudioPieces.frameSize)
            let around = (join - window / 2)..<(join + window / 2)
            let atJoin = Self.snr(pcm[around], joined[around]), inOneGo = Self.snr(pcm[around], one[around])
            #expect(atJoin >= inOneGo - 1, "join at sample \(join): \(atJoin) dB from the samples, in one go \(inOneGo) dB")
        }
        // At a constant quality the pieces' encoders code the samples as the one encoder
        // does once past their first frames: the joined track is the one-go track, packet
        // for packet (docs/rendering.md, "Audio in pieces").
        let joinedPackets = try Self.packetHashes(joinedPath, ffmpeg: ffmpeg), onePackets = try Self.packetHashes(reference, ffmpeg: ffmpeg)
        #expect(joinedPackets.count == onePackets.count)
        let differing = zip(joinedPackets, onePackets).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(differing.isEmpty, "\(differing.count) packets differ from the track in one go, the first \(differing.prefix(8))")
        let between = Self.snr(one, joined)
        #expect(between >= 40, "joined against one go \(between) dB")
    }

    /// The track's left channel, as the renderer hands it to the encoder.
    final class SampleBuffer: AudioSampleSink {
        var left: [Float] = []
        func append(left: [Float], right: [Float]) throws { self.left += left }
        func appendSilence(_ count: Int) throws { left += [Float](repeating: 0, count: count) }
        func close() throws {}
    }

    /// The audio stream's duration in samples, as the container states it.
    static func audioDuration(_ path: String) throws -> String {
        let ffprobe = try #require(ProcessRunner.which("ffprobe"))
        return try ProcessRunner.run(ffprobe, ["-v", "error", "-select_streams", "a", "-show_entries", "stream=duration_ts", "-of", "csv=p=0", path])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The MD5 of each audio packet's bytes, in order, as the file stores them.
    static func packetHashes(_ path: String, ffmpeg: String) throws -> [Substring] {
        let listed = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"])
        try #require(listed.status == 0, "ffmpeg could not read \(path): \(listed.stderr)")
        return listed.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
    }

    /// Interleaved stereo float samples as ffmpeg decodes the file's audio.
    static func pcm(_ path: String, ffmpeg: String) throws -> [Float] {
        let decoded = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:a", "-f", "f32le", "-ac", "2", "-"])
        try #require(decoded.status == 0, "ffmpeg could not decode \(path): \(decoded.stderr)")
        let both = decoded.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return stride(from: 0, to: both.count, by: 2).map { both[$0] }
    }

    /// Signal (the reference) over the difference, in dB; 200 where they are the same.
    static func snr(_ reference: ArraySlice<Float>, _ other: ArraySlice<Float>) -> Double {
        var signal = 0.0, noise = 0.0
        for (a, b) in zip(reference, other) {
            signal += Double(a) * Double(a)
            noise += Double(a - b) * Double(a - b)
        }
        guard noise > 0 else { return 200 }
        return 10 * log10(signal / noise)
    }
}
