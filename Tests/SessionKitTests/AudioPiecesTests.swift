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
