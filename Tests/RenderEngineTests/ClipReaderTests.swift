import Foundation
import ReelTestSupport
import Testing
@testable import RenderEngine
@testable import SessionKit

/// How much a picture at a time decodes (docs/rendering.md, "Pictures at a time"): only the
/// reference frames before it, only the new frames of a scrub in the same GOP, one
/// frame with a tolerance that reaches a keyframe, none for a frame decoded just before.
@Suite struct ClipReaderTests {
    /// 3 s at 30 fps, a keyframe each second, I B b B P … (b: the reference B of each
    /// mini-GOP of three): of the 28 frames up to frame 27, 14 are references.
    private func clip() throws -> (StillRenderer, URL) {
        let dir = try TestEnvironment.scratchDirectory()
        var media = SampleMedia()
        media.width = 160
        media.height = 96
        media.duration = 3
        media.audio = false
        media.pattern = .frameIndex
        try media.write(to: dir.appendingPathComponent("plain.mp4").path)
        let encoded = try ProcessRunner.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", "plain.mp4", "-c:v", "libx264", "-crf", "12",
                                                               "-g", "30", "-bf", "3", "-x264-params", "b-adapt=0:scenecut=0:b-pyramid=normal",
                                                               "gop.mp4"], directory: dir)
        #expect(encoded.status == 0, "\(encoded.stderr)")
        let session = dir.appendingPathComponent("s.json")
        try Data(#"{"video": {"videoSegments": [{"source": "gop.mp4"}]}}"#.utf8).write(to: session)
        let loaded = try LoadedSession.load(path: session.path)
        #expect(loaded.report.isValid)
        return (try StillRenderer(loaded: loaded), dir)
    }

    @Test func decodesOnlyWhatThePictureNeeds() throws {
        let (renderer, dir) = try clip()
        let decoders = StillDecoders(clips: 1, threads: { 2 })
        func shot(_ t: Double, tolerance: Double? = nil, size: Double = 160) throws -> (shown: Double, decoded: Int) {
            let before = decoders.framesDecoded
            let plan = try renderer.plan(StillRequest(kind: .thumbnail, segment: 0, time: SessionTime(seconds: t),
                                                      box: Size(width: size, height: size), tolerance: tolerance.flatMap { SessionTime(seconds: $0) }))
            let shown = try renderer.render(plan, to: dir.appendingPathComponent("p.jpg").path, decoders: decoders, clipKey: "gop")
            return (shown.doubleValue, decoders.framesDecoded - before)
        }
        // Frame 27: the 14 references before it, itself, and what frame threads and the
        // reorder delay need after it; decoding every frame would give 28 or more.
        let first = try shot(0.9)
        #expect(abs(first.shown - 0.9) < 1e-9)
        #expect(first.decoded >= 15 && first.decoded <= 19, "decoded \(first.decoded) frames for frame 27")
        // A jump drains the decoder; a second time later in the GOP is a scrub: it starts
        // again at the keyframe and keeps decoding, so the third decodes only new frames.
        let second = try shot(0.95)
        #expect(abs(second.shown - 28.0 / 30) < 1e-9 && second.decoded <= 20, "frame 28 decoded \(second.decoded)")
        let third = try shot(0.97)
        #expect(abs(third.shown - 29.0 / 30) < 1e-9 && third.decoded <= 3, "frame 29 decoded \(third.decoded) more")
        // A tolerance that reaches the keyframe at 2 s decodes it alone.
        let keyframe = try shot(2.1, tolerance: 0.3)
        #expect(abs(keyframe.shown - 2) < 1e-9 && keyframe.decoded == 1, "\(keyframe)")
        // The same frame at another size comes from the decoded frames kept.
        let resized = try shot(2.1, tolerance: 0.3, size: 80)
        #expect(abs(resized.shown - 2) < 1e-9 && resized.decoded == 0, "\(resized)")
        // Backwards: a new start at the keyframe before.
        let back = try shot(1.2)
        #expect(abs(back.shown - 1.2) < 1e-9 && back.decoded <= 8, "\(back)")
    }

    @Test func aFilmstripsKeyframesAreDecodedTogetherOnceEach() throws {
        let (renderer, dir) = try clip()
        let decoders = StillDecoders(clips: 1, threads: { 2 })
        // Three times, each 0.1 s from a different keyframe (0, 1 and 2 s), tolerance 0.4.
        let plans = try [0.1, 1.1, 1.9].map {
            try renderer.plan(StillRequest(kind: .thumbnail, segment: 0, time: SessionTime(seconds: $0), box: Size(width: 80, height: 48),
                                           tolerance: SessionTime(seconds: 0.4)))
        }
        renderer.prepareKeyframes(plans.map { ($0, "gop") }, decoders: decoders)
        #expect(decoders.framesDecoded == 3, "decoded \(decoders.framesDecoded) frames for three keyframes")
        for (plan, keyframe) in zip(plans, [0.0, 1, 2]) {
            let shown = try renderer.render(plan, to: dir.appendingPathComponent("k.jpg").path, decoders: decoders, clipKey: "gop")
            #expect(abs(shown.doubleValue - keyframe) < 1e-9)
        }
        #expect(decoders.framesDecoded == 3, "the pictures decoded \(decoders.framesDecoded - 3) more")
    }

    @Test func frameThreadsUseTheCoresNoSlotRenders() {
        // (cores, busy slots, frame threads): the idle cores, at least one, at most four.
        for (cores, busy, threads) in [(2, 0, 2), (2, 1, 1), (2, 2, 1), (2, 5, 1), (8, 1, 4), (8, 6, 2), (1, 0, 1)] {
            #expect(StillDecoders.frameThreads(cores: cores, busy: busy) == threads, "\(cores) cores, \(busy) busy")
        }
    }
}
