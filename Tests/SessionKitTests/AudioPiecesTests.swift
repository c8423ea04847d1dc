import Testing
@testable import SessionKit

/// Where the audio track is cut and what each piece encodes and keeps (docs/rendering.md,
/// "Audio in pieces"), worked by hand.
struct AudioPiecesTests {
    static let thirtyFPS = Rational(1, 30)!

    static func segments(seconds: [Int]) -> [SegmentTimeline] {
        var start: Int64 = 0
        return seconds.enumerated().map { index, s in
            defer { start += Int64(s * 30) }
            return SegmentTimeline(index: index, source: "c\(index).mp4", frameCount: Int64(s * 30), outputStartFrame: start,
                                   trimStart: .zero, trimDuration: Rational(s), speed: .one, frameDuration: thirtyFPS,
                                   orientation: .up, naturalSize: Size(width: 64, height: 36), actualSize: Size(width: 64, height: 36),
                                   cropRect: Rect(x: 0, y: 0, width: 64, height: 36), filters: [], hasAudio: true, location: nil,
                                   sourceOrigin: .zero)
        }
    }

    @Test func aJoinSitsOnTheFrameGridPastTheGuard() {
        // A boundary at 10 s = 480,000 samples; the guard is 240 frames (245,760 samples):
        // the first window kept starts at or after 725,760 = 708.75 frames → frame 709
        // (726,016), which is packet 710 (packet m is stamped (m − 1) · 1024).
        #expect(AudioPieces.joinPacket(after: 480_000) == 710)
        #expect((AudioPieces.joinPacket(after: 480_000) - 1) * 1024 >= 480_000 + AudioPieces.joinGuard)
        #expect((AudioPieces.joinPacket(after: 480_000) - 2) * 1024 < 480_000 + AudioPieces.joinGuard)
        // The piece before renders to the end of packet 712's window: (710 + 3) · 1024 − 480,000.
        #expect(AudioPieces.postRollSamples(after: 480_000) == 250_112)
    }

    @Test func sixtyTenSecondClipsAreSixtyPiecesAndShortClipsAreGrouped() {
        let long = AudioPieces.plan(Self.segments(seconds: Array(repeating: 10, count: 60)), frameDuration: Self.thirtyFPS)
        #expect(long.count == 60)
        #expect(long.map(\.segment) == Array(0..<60))
        #expect(long.allSatisfy { $0.kind == .audio && $0.endFrame - $0.startFrame == 300 })
        // 3-s clips: a piece closes once it holds 10 s (four clips, 12 s).
        let short = AudioPieces.plan(Self.segments(seconds: Array(repeating: 3, count: 12)), frameDuration: Self.thirtyFPS)
        #expect(short.map(\.segment) == [0, 4, 8])
        #expect(short.map { $0.endFrame - $0.startFrame } == [360, 360, 360])
        // No cut where less than the post-roll (5.2 s) is left: 10 + 5 s is one piece.
        let tail = AudioPieces.plan(Self.segments(seconds: [10, 5]), frameDuration: Self.thirtyFPS)
        #expect(tail.map(\.segment) == [0])
        #expect(AudioPieces.plan(Self.segments(seconds: [10, 6]), frameDuration: Self.thirtyFPS).map(\.segment) == [0, 1])
    }

    @Test func piecesKeepEveryPacketOnceAndEncodeWhatTheirJoinsNeed() {
        let total: Int64 = 30 * 48_000
        let layouts = [0..<480_000, 480_000..<960_000, 960_000..<total].map { AudioPieceLayout(start: $0.lowerBound, end: $0.upperBound, total: total) }
        #expect(layouts.map(\.firstPacket) == [0, 710, 1179])
        #expect(layouts.map(\.endPacket) == [710, 1179, nil])
        // The first piece starts at the track's start; the others at the frame holding
        // their first sample (480,000 = 468.75 frames → 468 · 1024), silence before it.
        #expect(layouts.map(\.encodeFrom) == [0, 479_232, 959_488])
        let encodeTo: [Int64] = [713 * 1024, 1182 * 1024, total]
        #expect(layouts.map(\.encodeTo) == encodeTo)
        // Counted from each encoder: the second keeps its packets 242 … 710.
        #expect(layouts[1].keptLocalPackets == 242..<711)
        // The window of the last packet kept before a join ends before the post-roll does.
        for layout in layouts.dropLast() {
            let windowEnd: Int64 = ((layout.endPacket ?? 0) + 1) * 1024
            #expect(windowEnd <= layout.encodeTo)
        }
    }
}

/// Pieces inside a segment (docs/rendering.md, "Audio in pieces"): a segment longer than
/// a piece, at speed 1, is cut every 4 s; a stretched one never is.
struct AudioPiecesInsideTests {
    static let thirtyFPS = Rational(1, 30)!

    static func clip(seconds: Int, speed: Rational = .one, audio: Bool = true) -> [SegmentTimeline] {
        [SegmentTimeline(index: 0, source: "c.mp4", frameCount: Int64(seconds * 30), outputStartFrame: 0,
                         trimStart: .zero, trimDuration: Rational(seconds) * speed, speed: speed, frameDuration: thirtyFPS,
                         orientation: .up, naturalSize: Size(width: 64, height: 36), actualSize: Size(width: 64, height: 36),
                         cropRect: Rect(x: 0, y: 0, width: 64, height: 36), filters: [], hasAudio: audio, location: nil,
                         sourceOrigin: .zero)]
    }

    @Test func aLongClipAtSpeedOneIsCutEveryFourSeconds() {
        // 12 s: cuts at 4 s and 8 s; inside a segment the piece after warms up before its
        // start, so the piece before needs only a few frames past the cut.
        let twelve = AudioPieces.plan(Self.clip(seconds: 12), frameDuration: Self.thirtyFPS)
        #expect(twelve.map(\.startFrame) == [0, 120, 240], "\(twelve)")
        #expect(twelve.allSatisfy { $0.segment == 0 && $0.kind == .audio })
        #expect(twelve.last?.endFrame == 360)
        // Ten minutes: a piece every 4 s (120 frames).
        let long = AudioPieces.plan(Self.clip(seconds: 600), frameDuration: Self.thirtyFPS)
        #expect(long.count == 150 && long.dropLast().allSatisfy { $0.endFrame - $0.startFrame == 120 }, "\(long.count)")
        #expect(zip(long, long.dropFirst()).allSatisfy { $0.endFrame == $1.startFrame } && long.last?.endFrame == 18_000)
        // Stretched sound is never cut inside; silence is.
        #expect(AudioPieces.plan(Self.clip(seconds: 60, speed: Rational(3, 2)!), frameDuration: Self.thirtyFPS).count == 1)
        #expect(AudioPieces.plan(Self.clip(seconds: 60, audio: false), frameDuration: Self.thirtyFPS).count == 15)
    }

    @Test func aPieceInsideASegmentReadsFromAPreRollOnTheResamplersGrid() {
        // 4 s in = 192,000 samples: 0.48 s of pre-roll back, on the 1,920 grid.
        #expect(AudioPieces.readFrom(offset: 192_000) == 192_000 - 23_040)
        #expect(AudioPieces.readFrom(offset: 200_000) % 1920 == 0 && AudioPieces.readFrom(offset: 200_000) <= 200_000 - 23_040)
        #expect(AudioPieces.readFrom(offset: 10_000) == 0)
        // Every listed source rate meets 48 kHz on that grid: n · rate / 48,000 is whole.
        for rate: Int64 in [8_000, 11_025, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 88_200, 96_000] {
            #expect(AudioPieces.resamplerPeriod * rate % 48_000 == 0, "\(rate)")
        }
    }
}
