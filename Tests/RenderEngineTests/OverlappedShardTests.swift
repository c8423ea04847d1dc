import Foundation
import ReelTestSupport
import SessionKit
import Testing
@testable import RenderEngine

/// docs/rendering.md, "A shard on two cores": a video shard whose pictures are made on a
/// thread of their own gives the chunk made one picture after another, byte for byte, and
/// a cancelled one stops and returns.
@Suite struct OverlappedShardTests {
    /// A speed-0.5 segment (repeated source frames) with a per-pixel chain, in shards of
    /// 1-s keyframe intervals.
    static func job(in dir: URL) throws -> (JobSpec, [String: MediaInput]) {
        var media = SampleMedia()
        media.duration = 4
        media.width = 96
        media.height = 54
        try media.write(to: dir.appendingPathComponent("a.mp4").path)
        let session = #"""
        {"video": {"renderSize": [96, 54], "frameDuration": {"value": 1, "timescale": 30}, "videoSegments": [
          {"source": "a.mp4", "trimDuration": 1.5, "speedMultiplier": 0.5,
           "filters": [{"type": "saturation", "normalizedIntensity": 0.4}, {"type": "vignette", "normalizedIntensity": 50}]}
        ]}}
        """#
        let loaded = try LoadedSession.load(path: try TestEnvironment.write(session, to: "s.json", in: dir), looks: nil)
        let spec = try JobSpec.compile(loaded, settings: EncoderSettings(keyframeIntervalSeconds: 1), contentIDs: ["a.mp4": "sha256:aa"],
                                       shardKeyframeIntervals: 1)
        return (spec, loaded.files.mapValues { MediaInput.file($0.path) })
    }

    @Test func overlappedAndInTurnGiveTheSameChunks() throws {
        let dir = try TestEnvironment.scratchDirectory("overlapped")
        let (spec, media) = try Self.job(in: dir)
        let video = spec.tasks.indices.filter { spec.tasks[$0].kind == .video }
        #expect(video.count == 3)
        for task in video {
            let inTurn = dir.appendingPathComponent("in-turn-\(task).mp4").path
            let overlapped = dir.appendingPathComponent("overlapped-\(task).mp4").path
            let one = try ShardRenderer.render(spec.shard(task), media: media, assets: [:], to: inTurn, overlapped: false)
            let two = try ShardRenderer.render(spec.shard(task), media: media, assets: [:], to: overlapped, overlapped: true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: inTurn)) == Data(contentsOf: URL(fileURLWithPath: overlapped)), "task \(task)")
            #expect(one.framesEncoded == two.framesEncoded && one.sourceFramesProcessed == two.sourceFramesProcessed)
            #expect(two.framesEncoded == spec.tasks[task].frameCount)
        }
    }

    @Test func aCancelledOverlappedShardStopsAndThrows() throws {
        struct Cancelled: Error {}
        let dir = try TestEnvironment.scratchDirectory("overlapped-cancel")
        let (spec, media) = try Self.job(in: dir)
        let task = try #require(spec.tasks.indices.first { spec.tasks[$0].kind == .video })
        var encoded = 0
        #expect(throws: Cancelled.self) {
            try ShardRenderer.render(spec.shard(task), media: media, assets: [:], to: dir.appendingPathComponent("c.mp4").path,
                                     overlapped: true) { frames in
                encoded += frames
                if encoded == 5 { throw Cancelled() }
            }
        }
        #expect(encoded == 5)
    }
}
