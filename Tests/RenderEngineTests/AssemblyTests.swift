import Foundation
import ReelTestSupport
import SessionKit
import Testing
@testable import RenderEngine

/// docs/rendering.md, "Assembly": the MP4 written while its chunks arrive, in any order, is
/// the file written from all of them at once; it is faststart with its index in room kept
/// for it, and its packets are exact: every frame once, every audio packet 1,024 samples
/// but the last, the audio exactly as long as its frames.
@Suite struct AssemblyTests {
    /// Four segments over two clips (11.3 s, 20.5 s at 2×, 6 s at 0.5×, 13 s at 1.5×): four
    /// pieces of sound, whose first join ends a piece off the millisecond grid.
    static let session = #"""
    {"video": {"renderSize": [64, 36], "frameDuration": {"value": 1, "timescale": 30}, "videoSegments": [
      {"source": "a.mp4", "trimDuration": 11.3},
      {"source": "b.mp4", "trimDuration": 20.5, "speedMultiplier": 2},
      {"source": "a.mp4", "trimStartTime": 1, "trimDuration": 6, "speedMultiplier": 0.5},
      {"source": "b.mp4", "trimDuration": 13, "speedMultiplier": 1.5}
    ]}}
    """#

    /// The job's chunks, rendered in this process.
    static func renderedJob(shardKeyframeIntervals: Int64, in dir: URL) throws -> (JobSpec, (Int) -> String) {
        for (name, seconds) in [("a.mp4", 14.0), ("b.mp4", 24.0)] {
            var media = SampleMedia()
            media.duration = seconds
            media.width = 64
            media.height = 36
            try media.write(to: dir.appendingPathComponent(name).path)
        }
        let sessionPath = try TestEnvironment.write(session, to: "s.json", in: dir)
        let loaded = try LoadedSession.load(path: sessionPath, looks: nil)
        let ids = ["a.mp4": "sha256:aa", "b.mp4": "sha256:bb"]
        let spec = try JobSpec.compile(loaded, settings: EncoderSettings(keyframeIntervalSeconds: 1), contentIDs: ids,
                                       shardKeyframeIntervals: shardKeyframeIntervals)
        let chunks = dir.appendingPathComponent("chunks")
        try FileManager.default.createDirectory(at: chunks, withIntermediateDirectories: true)
        let path = { (task: Int) in chunks.appendingPathComponent("task-\(task)." + (spec.tasks[task].kind == .video ? "mp4" : "m4a")).path }
        let media = loaded.files.mapValues { MediaInput.file($0.path) }
        for task in spec.tasks.indices {
            _ = try ShardRenderer.render(spec.shard(task), media: media, assets: [:], to: path(task))
        }
        return (spec, path)
    }

    @Test(arguments: [1_000, 2])
    func chunksArrivingInAnyOrderGiveTheFileWrittenAtOnce(shardKeyframeIntervals: Int64) throws {
        let dir = try TestEnvironment.scratchDirectory("assembly-\(shardKeyframeIntervals)")
        let (spec, chunkPath) = try Self.renderedJob(shardKeyframeIntervals: shardKeyframeIntervals, in: dir)
        let videoChunks = spec.tasks.filter { $0.kind == .video }.count
        #expect(shardKeyframeIntervals == 2 ? videoChunks > 10 : videoChunks == 4)   // one a segment when not cut
        let atOnce = dir.appendingPathComponent("at-once.mp4").path
        try spec.assemble(to: atOnce, chunkPath: chunkPath)

        // The chunks arrive last first: nothing can be written until the first is there.
        let file = try #require(spec.outputFiles.first)
        let arriving = dir.appendingPathComponent("arriving.mp4").path
        let assembly = try spec.beginAssembly(of: file, to: arriving, chunkPath: chunkPath)
        var present: Set<String> = []
        let order = Array(spec.tasks.indices.reversed())
        for (step, task) in order.enumerated() {
            present.insert(chunkPath(task))
            let complete = try assembly.advance { present.contains($0) }
            #expect(complete == (step == order.count - 1))
            if step < order.count - 1 { #expect(assembly.writtenPackets == 0, "packets written after a gap") }
        }
        try assembly.finish()
        try spec.writeSidecar(of: file, beside: arriving)
        #expect(try Data(contentsOf: URL(fileURLWithPath: arriving)) == Data(contentsOf: URL(fileURLWithPath: atOnce)))

        // In output order, one at a time: the packets follow each chunk.
        let inOrder = dir.appendingPathComponent("in-order.mp4").path
        let following = try spec.beginAssembly(of: file, to: inOrder, chunkPath: chunkPath)
        present = []
        var written: [Int] = []
        for task in spec.tasks.indices {
            present.insert(chunkPath(task))
            _ = try following.advance { present.contains($0) }
            written.append(following.writtenPackets)
        }
        try following.finish()
        // Nothing before the first picture is there (after the pieces of sound), then packets
        // as chunks come.
        let firstPicture = try #require(spec.tasks.firstIndex { $0.kind == .video })
        #expect(written[..<firstPicture].allSatisfy { $0 == 0 } && written[firstPicture] > 0
                && written.last ?? 0 > written[firstPicture], "\(written)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inOrder)) == Data(contentsOf: URL(fileURLWithPath: atOnce)))

        try Self.expectExact(atOnce, spec: spec)
    }

    static func expectExact(_ path: String, spec: JobSpec) throws {
        // faststart: the index before the media data, the room left over as `free`.
        let boxes = try topLevelBoxes(path)
        let moov = try #require(boxes.firstIndex { $0 == "moov" })
        let mdat = try #require(boxes.firstIndex { $0 == "mdat" })
        #expect(moov < mdat, "\(boxes)")
        let ffprobe = try #require(ProcessRunner.which("ffprobe"))
        func column(_ stream: String, _ entries: String) throws -> [String] {
            try ProcessRunner.run(ffprobe, ["-v", "error", "-select_streams", stream, "-show_entries", entries, "-of", "csv=p=0", path])
                .stdout.split(separator: "\n").compactMap { $0.split(separator: ",").first.map(String.init) }
        }
        // Every frame once, each one frame long (15,360 ticks a second: 512 a frame at 30 fps).
        let video = try column("v", "packet=duration")
        #expect(Int64(video.count) == spec.output.frames)
        #expect(Set(video) == ["512"])
        // The audio: packets of 1,024 samples but the last, and exactly frames × 48000 / 30 long.
        let audio = try column("a", "packet=duration")
        #expect(Set(audio.dropLast()) == ["1024"])
        let samples = AudioPieces.sample(ofFrame: spec.output.frames, frameDuration: spec.output.frameDuration)
        #expect(try column("a", "stream=duration_ts") == ["\(samples)"])
        #expect(try column("v", "stream=duration_ts") == ["\(spec.output.frames * 512)"])
    }

    /// The names of the file's top-level boxes, in order.
    static func topLevelBoxes(_ path: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var names: [String] = []
        var offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            if size == 1, offset + 16 <= data.count { size = data[(offset + 8)..<(offset + 16)].reduce(0) { $0 << 8 | Int($1) } }
            names.append(String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self))
            guard size >= 8 else { break }
            offset += size
        }
        return names
    }
}
