/// The output audio track cut into pieces that render apart and join without a seam
/// (docs/rendering.md, "Audio in pieces"). Pure arithmetic on sample positions, shared by
/// the planner (where a cut may go) and the renderer (what a piece encodes and keeps).
///
/// The track is one AAC stream at 48 kHz whose packets sit on one grid: packet `m` has
/// the time stamp `(m − 1) · 1024` (packet 0 is the encoder's priming) and its transform
/// window covers the samples `[(m − 1) · 1024, (m + 1) · 1024)`. Two pieces join between
/// packets `J − 1` and `J`; the decoder overlaps those two windows on
/// `[(J − 1) · 1024, J · 1024)`, and the aliasing cancels only where both pieces encoded
/// the same samples. So a join never sits on a segment boundary (a piece cannot know the
/// tail of the segment before it without rendering that segment): it sits `joinGuard`
/// samples or more *after* the boundary, inside the next segment, whose head both pieces
/// render from that segment's own start and so hold sample for sample.
public enum AudioPieces {
    public static let sampleRate: Int64 = 48000
    /// Samples per AAC-LC frame.
    public static let frameSize: Int64 = 1024
    /// Samples between a segment boundary and the first window a later piece keeps, 5.12 s:
    /// the piece's encoder starts at the boundary (silence before it) and must be coding
    /// exactly as the one-go encoder does by its first kept packet. At the engine's
    /// constant quality that took 3 or 4 frames, and at most 30 after a loud onset; 240 is
    /// that margin many times over (docs/rendering.md, "Audio in pieces").
    public static let joinGuard: Int64 = 240 * frameSize
    /// Frames a piece encodes past its last kept packet, so the encoder's look-ahead (the
    /// next frame, for its window choice) sees the real signal.
    public static let postRollFrames: Int64 = 3
    /// A piece is at least this long (docs/scale.md, "Audio pieces"): ~0.2 s of one core
    /// at the measured 0.02 s per output second, a few per cent of one video shard.
    public static let minimumPieceSamples: Int64 = 10 * sampleRate
    /// Inside a segment longer than a piece whose sound restarts exactly (`cutsInside`), a
    /// cut every this many samples (docs/rendering.md, "Audio in pieces"): a 12-s clip is
    /// three pieces, a 10-minute one 150, none of them the export's tail; clips of 10 s or
    /// less stay whole segments.
    public static let insidePieceSamples: Int64 = 4 * sampleRate
    /// Output samples after which every common source rate's sample grid meets 48 kHz's
    /// again (8, 11.025, 16, 22.05, 24, 32, 44.1, 48, 88.2 and 96 kHz: 40 ms): a piece that
    /// starts its segment's sound there resamples on the one-task render's grid.
    public static let resamplerPeriod: Int64 = 1920
    /// What a piece that begins inside a segment renders of the segment before its start and
    /// drops: the decoder's first frames after a seek (AAC overlaps each frame with the one
    /// before) and the resampler's filter, warmed many times over (0.48 s).
    public static let preRollSamples: Int64 = 12 * resamplerPeriod

    /// Whether a segment's sound can be cut inside, its samples after a cut being those of
    /// the one-task render: silent, or at speed 1, where a decode and a resample restarted on
    /// the grid (`resamplerPeriod`) with a pre-roll give them again. A time-stretched
    /// segment (`atempo`) is never cut inside: the stretch's overlap-add places each window
    /// by correlation with the output before it, so its phase depends on every window since
    /// the segment's start, and no pre-roll gives it back (docs/rendering.md).
    public static func cutsInside(_ segment: SegmentTimeline) -> Bool {
        !segment.hasAudio || segment.speed == Rational(1)
    }

    /// Where, in samples of its segment, a piece beginning `offset` samples into it starts
    /// reading: the pre-roll before it, on the resampler's grid, never before the segment.
    public static func readFrom(offset: Int64) -> Int64 {
        max(0, (offset - preRollSamples) / resamplerPeriod * resamplerPeriod)
    }

    /// The first output frame that starts at or after `target` samples.
    static func frame(atOrAfter target: Int64, frameDuration: Rational) -> Int64 {
        var k = (Rational(Int(target)) / (frameDuration * Rational(Int(sampleRate)))).floor
        while sample(ofFrame: k, frameDuration: frameDuration) < target { k += 1 }
        return k
    }

    /// Sample index of output frame `k`: rounded from the exact time, so segment lengths
    /// add up with no drift.
    public static func sample(ofFrame k: Int64, frameDuration: Rational) -> Int64 {
        (Rational(Int(k)) * frameDuration * Rational(Int(sampleRate))).roundedHalfUp
    }

    /// The first packet a piece keeps when it begins at the segment boundary `sample`.
    public static func joinPacket(after sample: Int64) -> Int64 {
        (sample + joinGuard + frameSize - 1) / frameSize + 1
    }

    /// Samples after a boundary that the piece before it must render: up to the end of its
    /// post-roll.
    public static func postRollSamples(after boundary: Int64) -> Int64 {
        (joinPacket(after: boundary) + postRollFrames) * frameSize - boundary
    }

    /// The first packet a piece keeps when it begins at `sample` inside a segment: the first
    /// whose window starts there or after. Both sides of the join render the samples around
    /// it from the same segment (the piece after from a pre-roll), so the join needs no guard
    /// after the cut: the piece after warms its encoder on the `joinGuard` before it.
    public static func insideJoinPacket(at sample: Int64) -> Int64 {
        (sample + frameSize - 1) / frameSize + 1
    }

    /// Samples after an inside cut that the piece before it must render: 3 or 4 frames.
    public static func insidePostRollSamples(at cut: Int64) -> Int64 {
        (insideJoinPacket(at: cut) + postRollFrames) * frameSize - cut
    }

    /// The pieces of a timeline, in order: whole segments, at least `minimumPieceSamples`
    /// long, and inside a segment that `cutsInside`, pieces of `insidePieceSamples`; cut
    /// only where the rest of the track holds the join and the post-roll (the post-roll may
    /// run over several segments).
    public static func plan(_ segments: [SegmentTimeline], frameDuration: Rational) -> [ShardTask] {
        guard let first = segments.first, let last = segments.last else { return [] }
        let total = sample(ofFrame: last.outputStartFrame + last.frameCount, frameDuration: frameDuration)
        func at(_ frame: Int64) -> Int64 { sample(ofFrame: frame, frameDuration: frameDuration) }
        func holdsJoin(_ frame: Int64) -> Bool { total - at(frame) >= postRollSamples(after: at(frame)) }
        // Inside a segment the piece after warms up before its start: the rest need only
        // hold the few frames of the post-roll, and a piece's length.
        func holdsInsideJoin(_ frame: Int64) -> Bool {
            total - at(frame) >= max(insidePostRollSamples(at: at(frame)), insidePieceSamples / 2)
        }
        var pieces: [ShardTask] = []
        var opening = (frame: first.outputStartFrame, segment: first.index, inside: false)
        func cut(at frame: Int64, into segment: Int, inside: Bool) {
            pieces.append(.audio(frames: opening.frame..<frame, fromSegment: opening.segment))
            opening = (frame, segment, inside)
        }
        // The first sample the opening piece keeps: its own start, except at a segment's
        // start after the first, where the piece before keeps the `joinGuard` after it.
        func keptFrom() -> Int64 {
            let start = at(opening.frame)
            return opening.inside || start == 0 ? start : (joinPacket(after: start) - 1) * frameSize
        }
        for segment in segments where segment.frameCount > 0 {
            let start = segment.outputStartFrame, end = start + segment.frameCount
            if start > opening.frame, at(start) - at(opening.frame) >= minimumPieceSamples, holdsJoin(start) {
                cut(at: start, into: segment.index, inside: false)
            }
            guard cutsInside(segment), at(end) - at(start) > minimumPieceSamples else { continue }
            var next = frame(atOrAfter: max(keptFrom(), at(start)) + insidePieceSamples, frameDuration: frameDuration)
            while next < end, holdsInsideJoin(next) {
                cut(at: next, into: segment.index, inside: true)
                next = frame(atOrAfter: at(next) + insidePieceSamples, frameDuration: frameDuration)
            }
        }
        pieces.append(.audio(frames: opening.frame..<(last.outputStartFrame + last.frameCount), fromSegment: opening.segment))
        return pieces
    }
}

/// What one piece of the audio track encodes and keeps, in samples and packets of the
/// whole track (docs/rendering.md, "Audio in pieces").
public struct AudioPieceLayout: Hashable, Sendable {
    /// The piece's own samples: `[start, end)` of the track's `total`.
    public let start: Int64
    public let end: Int64
    public let total: Int64
    /// Whether the piece begins, or ends, inside a segment rather than at its start.
    public let startsInside: Bool
    public let endsInside: Bool

    public init(start: Int64, end: Int64, total: Int64, startsInside: Bool = false, endsInside: Bool = false) {
        self.start = start
        self.end = end
        self.total = total
        self.startsInside = startsInside && start > 0
        self.endsInside = endsInside && end < total
    }

    /// A piece of output frames `frames` on a track of `totalFrames`, whose segments start
    /// at the output frames `segmentStarts` (what tells a cut inside a segment from one at
    /// its start; nil: every cut is at a segment's start).
    public init(frames: Range<Int64>, totalFrames: Int64, frameDuration: Rational, segmentStarts: Set<Int64>? = nil) {
        self.init(start: AudioPieces.sample(ofFrame: frames.lowerBound, frameDuration: frameDuration),
                  end: AudioPieces.sample(ofFrame: frames.upperBound, frameDuration: frameDuration),
                  total: AudioPieces.sample(ofFrame: totalFrames, frameDuration: frameDuration),
                  startsInside: segmentStarts.map { !$0.contains(frames.lowerBound) } ?? false,
                  endsInside: segmentStarts.map { !$0.contains(frames.upperBound) } ?? false)
    }

    public var isFirst: Bool { start == 0 }
    public var isLast: Bool { end >= total }

    /// Where the piece's encoder starts: the track's start; the frame holding its first
    /// sample (silence before it) at a segment's start; inside a segment, `joinGuard`
    /// before its first kept packet, on the segment's own samples (silence before the
    /// segment's start).
    public var encodeFrom: Int64 {
        if isFirst { return 0 }
        if startsInside { return max(0, (firstPacket - 1) * AudioPieces.frameSize - AudioPieces.joinGuard) }
        return start / AudioPieces.frameSize * AudioPieces.frameSize
    }
    /// Where the piece's samples begin, its first segment starting at `firstSegment`: at
    /// its start; inside a segment, at `encodeFrom` or the segment's start if later (silence
    /// before it in either case).
    public func renderFrom(firstSegment: Int64) -> Int64 {
        startsInside ? min(start, max(firstSegment, encodeFrom)) : start
    }

    /// The samples fed to the encoder: to the end of the post-roll, or of the track.
    public var encodeTo: Int64 {
        guard let endPacket else { return total }
        return (endPacket + AudioPieces.postRollFrames) * AudioPieces.frameSize
    }
    /// The packets of the track the piece keeps (`nil`: to the end of the stream).
    public var firstPacket: Int64 {
        isFirst ? 0 : startsInside ? AudioPieces.insideJoinPacket(at: start) : AudioPieces.joinPacket(after: start)
    }
    public var endPacket: Int64? {
        isLast ? nil : endsInside ? AudioPieces.insideJoinPacket(at: end) : AudioPieces.joinPacket(after: end)
    }

    /// The same packets counted from the piece's encoder (its packet 0 is its priming):
    /// what the renderer keeps.
    public var keptLocalPackets: Range<Int64> {
        let shift = encodeFrom / AudioPieces.frameSize
        return (firstPacket - shift)..<((endPacket ?? Int64.max / 2) - shift)
    }
}
