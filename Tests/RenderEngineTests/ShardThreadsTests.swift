import Foundation
import ReelTestSupport
import SessionKit
import Testing
@testable import RenderEngine

/// docs/rendering.md, "A shard's cores": a video shard whose pictures are made on a thread
/// of their own, or whose source decodes on frame threads, gives the chunk made one
/// picture after another on one thread, byte for byte, and a cancelled one stops and
/// returns.
@Suite struct ShardThreadsTests {
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

    @Test(arguments: [ShardThreads(overlapped: true, decode: 1), ShardThreads(overlapped: false, decode: 3),
                      ShardThreads(overlapped: true, decode: 4)])
    func moreThreadsGiveTheSameChunks(threads: ShardThreads) throws {
        let dir = try TestEnvironment.scratchDirectory("shard-threads")
        let (spec, media) = try Self.job(in: dir)
        let video = spec.tasks.indices.filter { spec.tasks[$0].kind == .video }
        #expect(video.count == 3)
        for task in video {
            let single = dir.appendingPathComponent("single-\(task).mp4").path
            let threaded = dir.appendingPathComponent("threaded-\(task).mp4").path
            let one = try ShardRenderer.render(spec.shard(task), media: media, assets: [:], to: single, threads: .single)
            let two = try ShardRenderer.render(spec.shard(task), media: media, assets: [:], to: threaded, threads: threads)
            #expect(try Data(contentsOf: URL(fileURLWithPath: single)) == Data(contentsOf: URL(fileURLWithPath: threaded)), "task \(task)")
            #expect(one.framesEncoded == two.framesEncoded && one.sourceFramesProcessed == two.sourceFramesProcessed)
            #expect(two.framesEncoded == spec.tasks[task].frameCount)
        }
    }

    /// The default share: a slot of one core or less decodes on one thread; a slot of
    /// several cores on its share, and a source larger than 1080p on one thread more
    /// (libavcodec's cores + 1), never past the cap; `--decode-threads` wins for both.
    @Test func aSlotDecodesOnItsShareOfTheCores() {
        #expect(ShardThreads.sharing(cores: 8, among: 8) == ShardThreads(overlapped: false, decode: 1, decodeLarge: 1))
        #expect(ShardThreads.sharing(cores: 8, among: 4) == ShardThreads(overlapped: true, decode: 2, decodeLarge: 3))
        #expect(ShardThreads.sharing(cores: 2, among: 1) == ShardThreads(overlapped: true, decode: 2, decodeLarge: 3))
        #expect(ShardThreads.sharing(cores: 3, among: 2) == ShardThreads(overlapped: true, decode: 1, decodeLarge: 1))
        #expect(ShardThreads.sharing(cores: 64, among: 1).decode == ShardThreads.maximumDecodeThreads)
        #expect(ShardThreads.sharing(cores: 64, among: 1).decodeLarge == ShardThreads.maximumDecodeThreads)
        #expect(ShardThreads.sharing(cores: 2, among: 4) == ShardThreads(overlapped: false, decode: 1))
        let twoCores = ShardThreads.sharing(cores: 2, among: 1)
        #expect(twoCores.decodeThreads(for: Size(width: 1920, height: 1080)) == 2)
        #expect(twoCores.decodeThreads(for: Size(width: 1080, height: 1920)) == 2)
        #expect(twoCores.decodeThreads(for: Size(width: 3840, height: 2160)) == 3)
        #expect(twoCores.decodeThreads(for: Size(width: 2160, height: 3840)) == 3)
        #expect(ShardThreads.sharing(cores: 2, among: 2, decodeThreads: 3) == ShardThreads(overlapped: false, decode: 3, decodeLarge: 3))
    }

    @Test func aCancelledOverlappedShardStopsAndThrows() throws {
        struct Cancelled: Error {}
        let dir = try TestEnvironment.scratchDirectory("overlapped-cancel")
        let (spec, media) = try Self.job(in: dir)
        let task = try #require(spec.tasks.indices.first { spec.tasks[$0].kind == .video })
        var encoded = 0
        #expect(throws: Cancelled.self) {
            try ShardRenderer.render(spec.shard(task), media: media, assets: [:], to: dir.appendingPathComponent("c.mp4").path,
                                     threads: ShardThreads(overlapped: true, decode: 2)) { frames in
                encoded += frames
                if encoded == 5 { throw Cancelled() }
            }
        }
        #expect(encoded == 5)
    }
}
