import Foundation
import ReelTestSupport
import SessionKit
import Testing
@testable import RenderEngine

/// A job compiled once: each shard's spec names only what it reads, the spec survives the
/// store, a recipe depends on content and not on names or positions, and a spec that
/// could not come from a compiled job is refused before use.
struct JobSpecTests {
    static let cube = "LUT_3D_SIZE 2\n" + (0..<8).map { i in "\(i & 1) \((i >> 1) & 1) \((i >> 2) & 1)" }.joined(separator: "\n") + "\n"

    /// Three clips known by their probes (nothing is decoded); the second has a `.cube`
    /// LUT, the third no sound.
    static func compile(lutIntensity: Double = 0.8, secondName: String = "b.mp4", layout: Plan.Layout = .whole) throws -> JobSpec {
        let dir = try TestEnvironment.scratchDirectory()
        let lut = dir.appendingPathComponent("x.cube")
        try Data(cube.utf8).write(to: lut)
        let segments = [
            SessionVideoSegment(source: "a.mp4"),
            SessionVideoSegment(source: secondName, filters: [SessionFilter(type: "lut", normalizedIntensity: lutIntensity, file: "x.cube")]),
            SessionVideoSegment(source: "c.mp4"),
        ]
        let session = Session(video: SessionVideo(videoSegments: segments))
        func clip(_ seconds: Int, audio: Bool) -> MediaInfo {
            MediaInfo(duration: Rational(seconds), frameDuration: Rational(1, 30)!, codedWidth: 64, codedHeight: 36, hasAudio: audio)
        }
        let probes = ["a.mp4": clip(2, audio: true), secondName: clip(3, audio: true), "c.mp4": clip(1, audio: false)]
        let loaded = LoadedSession.make(url: dir.appendingPathComponent("s.json"), session: session, files: ["x.cube": lut],
                                        probes: probes)
        #expect(loaded.report.isValid, "\(loaded.report.problems)")
        let ids = ["a.mp4": "sha256:aa", secondName: "sha256:bb", "c.mp4": "sha256:cc", "x.cube": "sha256:ff"]
        return try JobSpec.compile(loaded, settings: EncoderSettings(keyframeIntervalSeconds: 1), contentIDs: ids, layout: layout)
    }

    @Test func eachShardNamesOnlyItsOwnFiles() throws {
        let spec = try Self.compile()
        // 6 s of sound is one piece of the audio track, first.
        #expect(spec.tasks[0] == .audio(frames: 0..<180, fromSegment: 0))
        // 60 + 90 + 30 frames in shards of at most 2 s (two 1 s GOPs).
        #expect(spec.tasks.filter { $0.kind == .video }.map(\.frameCount) == [60, 60, 30, 30])
        #expect(spec.output.frames == 180)
        for index in spec.tasks.indices {
            let shard = spec.shard(index)
            try shard.check()
            switch (shard.task.kind, shard.task.segment) {
            case (.audio, _):
                #expect(Set(shard.files.keys) == ["a.mp4", "b.mp4"])
                #expect(shard.segments.count == 3)
            case (.segmentAudio, _): Issue.record("a whole job has no per-segment audio")
            case (.video, 0): #expect(shard.files == ["a.mp4": "sha256:aa"])
            case (.video, 1): #expect(shard.files == ["b.mp4": "sha256:bb", "x.cube": "sha256:ff"])
            case (.video, _): #expect(shard.files == ["c.mp4": "sha256:cc"])
            }
            if shard.task.kind == .video { #expect(shard.segments.map(\.index) == [shard.task.segment]) }
            // The coordinator's per-block check agrees with what the spec names.
            for id in ["sha256:aa", "sha256:bb", "sha256:cc", "sha256:ff"] {
                #expect(spec.task(index, reads: id) == shard.files.values.contains(id), "task \(index), \(id)")
            }
        }
    }

    @Test func aPerSegmentJobHasTheSameVideoShardsAndEachSegmentsOwnAudio() throws {
        let whole = try Self.compile()
        let split = try Self.compile(layout: .segments)
        #expect(split.tasks.filter { $0.kind == .video } == whole.tasks.filter { $0.kind == .video })
        // The first two clips have sound; the third has none and gets no audio task.
        #expect(split.tasks.filter { $0.kind != .video } == [.audio(ofSegment: 0), .audio(ofSegment: 1)])
        let second = split.shard(1)
        try second.check()
        #expect(second.files == ["b.mp4": "sha256:bb"])
        #expect(second.timeline.map(\.outputStartFrame) == [0])
        // Each file joins its segment's chunks and its audio, from frame 0.
        let files = split.outputFiles
        #expect(files.map(\.frames) == [60, 90, 30])
        #expect(files.map(\.startFrame) == [0, 60, 150])
        #expect(files.map { $0.audioTasks.count } == [1, 1, 0])
        #expect(files.flatMap(\.videoTasks) == split.tasks.indices.filter { split.tasks[$0].kind == .video })
    }

    @Test func theStoredSpecIsTheSameJob() throws {
        let spec = try Self.compile()
        let again = try JobSpec.decode(try spec.encoded())
        #expect(again.tasks == spec.tasks)
        #expect(again.segments == spec.segments)
        #expect(again.files == spec.files)
        for index in spec.tasks.indices { #expect(try again.shard(index).recipeKey() == spec.shard(index).recipeKey()) }
        var future = try JSONSerialization.jsonObject(with: try spec.encoded()) as? [String: Any] ?? [:]
        future["version"] = JobSpec.currentVersion + 1
        #expect(throws: EngineError.self) { try JobSpec.decode(try JSONSerialization.data(withJSONObject: future)) }
    }

    @Test func aRecipeDependsOnContentNotOnNamesOrPlaces() throws {
        let base = try Self.compile()
        let renamed = try Self.compile(secondName: "renamed.mp4")
        let keys = try base.tasks.indices.map { try base.shard($0).recipeKey() }
        #expect(Set(keys).count == keys.count, "every shard has its own recipe")
        // The same bytes under another name render the same chunks; the audio track too.
        #expect(try renamed.tasks.indices.map { try renamed.shard($0).recipeKey() } == keys)
        // A stronger LUT on the second clip changes only the second clip's shards.
        let edited = try Self.compile(lutIntensity: 0.3)
        let changed = try edited.tasks.indices.filter { try edited.shard($0).recipeKey() != keys[$0] }
        #expect(changed == edited.tasks.indices.filter { edited.tasks[$0].kind == .video && edited.tasks[$0].segment == 1 })
    }

    /// One 60-s clip's sound is 15 pieces of 4 s, each its own recipe: pieces inside one
    /// segment differ only in where they begin in it, and two such pieces once shared a key
    /// (a farm then took one's chunk for the other's; docs/rendering.md, "Audio in pieces").
    @Test func piecesInsideOneSegmentHaveKeysOfTheirOwn() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let session = Session(video: SessionVideo(videoSegments: [SessionVideoSegment(source: "a.mp4")]))
        let clip = MediaInfo(duration: Rational(60), frameDuration: Rational(1, 30)!, codedWidth: 64, codedHeight: 36, hasAudio: true)
        let loaded = LoadedSession.make(url: dir.appendingPathComponent("s.json"), session: session, files: [:], probes: ["a.mp4": clip])
        let spec = try JobSpec.compile(loaded, settings: EncoderSettings(), contentIDs: ["a.mp4": "sha256:a"])
        let pieces = spec.tasks.indices.filter { spec.tasks[$0].kind == .audio }
        #expect(pieces.count == 15)
        let keys = try pieces.map { try spec.shard($0).recipeKey() }
        #expect(Set(keys).count == keys.count, "\(keys.count - Set(keys).count) pieces share a key")
    }

    /// Four 12-s clips are nine pieces of the audio track (each cut inside every 4 s); the
    /// piece before a clip encodes its head as post-roll. Another clip of the same length in
    /// the third place changes the recipes of the pieces that read it and no other
    /// (docs/rendering.md, "Audio in pieces").
    @Test func anEditReRendersOnlyTheAudioPiecesThatReadIt() throws {
        func compile(third: String) throws -> JobSpec {
            let dir = try TestEnvironment.scratchDirectory()
            let names = ["a.mp4", "b.mp4", third, "d.mp4"]
            let session = Session(video: SessionVideo(videoSegments: names.map { SessionVideoSegment(source: $0) }))
            let clip = MediaInfo(duration: Rational(12), frameDuration: Rational(1, 30)!, codedWidth: 64, codedHeight: 36, hasAudio: true)
            let loaded = LoadedSession.make(url: dir.appendingPathComponent("s.json"), session: session, files: [:],
                                            probes: Dictionary(uniqueKeysWithValues: names.map { ($0, clip) }))
            let ids = Dictionary(uniqueKeysWithValues: names.map { ($0, "sha256:" + $0) })
            return try JobSpec.compile(loaded, settings: EncoderSettings(), contentIDs: ids)
        }
        let base = try compile(third: "c.mp4")
        let edited = try compile(third: "other.mp4")
        let pieces = base.tasks.indices.filter { base.tasks[$0].kind == .audio }
        // 12-s clips at speed 1 are cut inside every 4 s (docs/rendering.md, "Audio in pieces").
        #expect(pieces.map { base.tasks[$0].segment } == [0, 0, 0, 1, 1, 2, 2, 3, 3])
        #expect(pieces.map { base.shard($0).segments.map(\.index) } == [[0], [0], [0, 1], [1], [1, 2], [2], [2, 3], [3], [3]])
        // Pieces inside one segment differ only in where they begin in it: their keys differ
        // (two of them once shared a key, and a farm took one's chunk for the other's).
        let keys = try pieces.map { try base.shard($0).recipeKey() }
        #expect(Set(keys).count == keys.count)
        // The third clip's sound is read by the three pieces that hold it or run into it.
        let changed = try pieces.filter { try base.shard($0).recipeKey() != edited.shard($0).recipeKey() }
        #expect(changed.map { base.shard($0).segments.map(\.index) } == [[1, 2], [2], [2, 3]])
    }

    @Test func aSpecThatNoCompiledJobCouldGiveIsRefused() throws {
        let spec = try Self.compile()
        var beyond = spec.shard(1)
        beyond.task.endFrame = 10_000
        #expect(throws: EngineError.self) { try beyond.check() }
        var odd = spec.shard(1)
        odd.output.width = 63
        #expect(throws: EngineError.self) { try odd.check() }
        var orphan = spec.shard(1)
        orphan.files = [:]
        #expect(throws: EngineError.self) { try orphan.check() }
        var partialAudio = spec.shard(0)
        partialAudio.segments.removeFirst()
        #expect(throws: EngineError.self) { try partialAudio.check() }
    }
}
