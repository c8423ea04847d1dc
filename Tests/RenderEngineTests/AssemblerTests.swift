import Foundation
import ReelTestSupport
import Testing
@testable import RenderEngine
@testable import SessionKit

@Suite struct AssemblerTests {
    private func shardSetup() throws -> (URL, Timeline, String) {
        let dir = try TestEnvironment.scratchDirectory()
        var sample = SampleMedia()
        sample.width = 96
        sample.height = 64
        sample.duration = 2
        sample.audio = false
        let path = dir.appendingPathComponent("a.mp4").path
        try sample.write(to: path)
        let info = try MediaProbe.probe(path: path)
        let session = Session(video: SessionVideo(videoSegments: [SessionVideoSegment(source: "a.mp4")]))
        return (dir, try Timeline(session: session, media: ["a.mp4": info]), path)
    }

    @Test func chunksWithDifferentParameterSetsAreRefused() throws {
        let (dir, timeline, source) = try shardSetup()
        let plan = Plan(timeline: timeline, keyframeIntervalSeconds: Rational(1), shardKeyframeIntervals: 1)
        #expect(plan.videoShards.count == 2)
        let chain = try FilterChain(stages: [])
        var chunks: [Assembler.VideoChunk] = []
        for (shard, preset) in zip(plan.videoShards, ["veryfast", "ultrafast"]) {
            let path = dir.appendingPathComponent("chunk-\(shard.startFrame).mp4").path
            _ = try VideoShardRenderer(timeline: timeline, settings: EncoderSettings(preset: preset, keyframeIntervalSeconds: 1))
                .render(shard, of: timeline.segments[0], source: .file(source), chain: chain, to: path)
            chunks.append(.init(path: path, outputStartFrame: shard.outputStartFrame, frameCount: shard.frameCount))
        }
        let output = dir.appendingPathComponent("out.mp4").path
        do {
            try Assembler(frameDuration: timeline.frameDuration, creationDate: nil, location: nil).assemble(video: chunks, audio: [], to: output)
            Issue.record("chunks with different parameter sets were joined")
        } catch {
            #expect("\(error)".contains("parameter sets"))
        }
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.hasSuffix(".tmp.mp4") })
    }

    @Test func chunksStartWithAnIDRAndConcatenateWithoutReencoding() throws {
        let (dir, timeline, source) = try shardSetup()
        let plan = Plan(timeline: timeline, keyframeIntervalSeconds: try #require(Rational(1, 2)), shardKeyframeIntervals: 1)
        #expect(plan.videoShards.map(\.frameCount) == [15, 15, 15, 15])
        let chain = try FilterChain(stages: [])
        var chunks: [Assembler.VideoChunk] = []
        var packetsInChunks = 0
        for shard in plan.videoShards {
            let path = dir.appendingPathComponent("chunk-\(shard.startFrame).mp4").path
            _ = try VideoShardRenderer(timeline: timeline, settings: EncoderSettings(keyframeIntervalSeconds: 0.5))
                .render(shard, of: timeline.segments[0], source: .file(source), chain: chain, to: path)
            let ffprobe = try #require(ProcessRunner.which("ffprobe"))
            let frames = try ProcessRunner.run(ffprobe, ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pict_type,key_frame",
                                                         "-of", "csv=p=0", path]).stdout.split(separator: "\n")
            #expect(frames.first?.hasPrefix("1,I") == true)
            packetsInChunks += frames.count
            chunks.append(.init(path: path, outputStartFrame: shard.outputStartFrame, frameCount: shard.frameCount))
        }
        let output = dir.appendingPathComponent("out.mp4").path
        try Assembler(frameDuration: timeline.frameDuration, creationDate: nil, location: nil).assemble(video: chunks, audio: [], to: output)
        let video = try #require(try FFprobe.streams(output).first)
        #expect(video.frameCount == packetsInChunks)
        #expect(abs((video.duration ?? 0) - 2) < 0.001)
        // The joined stream's bytes are the chunks' bytes: no re-encode.
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let joined = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", output, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"]).stdout
        let parts = try chunks.map { try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", $0.path, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"]).stdout }
        let hashes = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last.map(String.init) ?? "" } }
        #expect(hashes(joined) == parts.flatMap(hashes))
    }

    /// A chunk of 1 or 2 frames is too short for x264's B-pyramid delay: its decode times
    /// equal its presentation times, 2 frames later than a longer chunk's. Joined, its decode
    /// times move back by that delay (docs/rendering.md, "Assembly"), else the packet after
    /// the join repeats a decode time and the muxer refuses the file.
    @Test func chunksTooShortForTheReorderDelayJoinWithLongerOnes() throws {
        let (dir, timeline, source) = try shardSetup()
        let chain = try FilterChain(stages: [])
        let ffprobe = try #require(ProcessRunner.which("ffprobe"))
        var chunks: [Assembler.VideoChunk] = []
        var start: Int64 = 0
        for length: Int64 in [2, 13, 1, 14, 2, 28] {
            let shard = ShardTask(kind: .video, segment: 0, startFrame: start, endFrame: start + length, outputStartFrame: start)
            let path = dir.appendingPathComponent("chunk-\(start).mp4").path
            _ = try VideoShardRenderer(timeline: timeline, settings: EncoderSettings(keyframeIntervalSeconds: 0.5))
                .render(shard, of: timeline.segments[0], source: .file(source), chain: chain, to: path)
            if length <= 2 {
                // The case at hand: the short chunk decodes with no delay of its own.
                let first = try ProcessRunner.run(ffprobe, ["-v", "error", "-show_entries", "packet=pts,dts", "-of", "csv=p=0", path])
                    .stdout.split(separator: "\n").first.map(String.init)
                #expect(first == "0,0", "chunk of \(length) frames: first packet pts,dts \(first ?? "none")")
            }
            chunks.append(.init(path: path, outputStartFrame: start, frameCount: length))
            start += length
        }
        #expect(start == timeline.totalFrames)
        let output = dir.appendingPathComponent("out.mp4").path
        try Assembler(frameDuration: timeline.frameDuration, creationDate: nil, location: nil).assemble(video: chunks, audio: [], to: output)
        // Decode times rise strictly and never pass their pictures' times.
        let packets = try ProcessRunner.run(ffprobe, ["-v", "error", "-show_entries", "packet=pts,dts", "-of", "csv=p=0", output])
            .stdout.split(separator: "\n").map { $0.split(separator: ",").compactMap { Int64($0) } }
        #expect(packets.count == Int(start))
        #expect(zip(packets, packets.dropFirst()).allSatisfy { $0[1] < $1[1] }, "decode times do not rise")
        #expect(packets.allSatisfy { $0[1] <= $0[0] })
        // Every picture is shown once, in order, one frame apart.
        let shown = try ProcessRunner.run(ffprobe, ["-v", "error", "-show_entries", "frame=pts", "-of", "default=nw=1:nk=1", output])
            .stdout.split(separator: "\n").compactMap { Int64($0) }
        let step = shown.count > 1 ? shown[1] - shown[0] : 0
        #expect(shown.count == Int(start) && step > 0 && shown == shown.indices.map { shown[0] + Int64($0) * step })
    }
}
