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

    /// The pieces of a timeline, in order: whole segments, at least
    /// `minimumPieceSamples` long, cut only where the rest of the track holds the join and
    /// the post-roll (the post-roll may run over several segments).
    public static func plan(_ segments: [SegmentTimeline], frameDuration: Rational) -> [ShardTask] {
        guard let first = segments.first, let last = segments.last else { return [] }
        let total = sample(ofFrame: last.outputStartFrame + last.frameCount, frameDuration: frameDuration)
        var pieces: [ShardTask] = []
        var opening = first
        for segment in segments.dropFirst() where segment.frameCount > 0 {
            let boundary = sample(ofFrame: segment.outputStartFrame, frameDuration: frameDuration)
            let own = boundary - sample(ofFrame: opening.outputStartFrame, frameDuration: frameDuration)
            if own >= minimumPieceSamples && total - boundary >= postRollSamples(after: boundary) {
                pieces.append(.audio(frames: opening.outputStartFrame..<segment.outputStartFrame, fromSegment: opening.index))
                opening = segment
            }
        }
        pieces.append(.audio(frames: opening.outputStartFrame..<(last.outputStartFrame + last.frameCount), fromSegment: opening.index))
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

    public init(start: Int64, end: Int64, total: Int64) {
        self.start = start
        self.end = end
        self.total = total
    }

    /// A piece of output frames `frames` on a track of `totalFrames`.
    public init(frames: Range<Int64>, totalFrames: Int64, frameDuration: Rational) {
        self.init(start: AudioPieces.sample(ofFrame: frames.lowerBound, frameDuration: frameDuration),
                  end: AudioPieces.sample(ofFrame: frames.upperBound, frameDuration: frameDuration),
                  total: AudioPieces.sample(ofFrame: totalFrames, frameDuration: frameDuration))
    }

    public var isFirst: Bool { start == 0 }
    public var isLast: Bool { end >= total }

    /// Where the piece's encoder starts: the frame holding its first sample (silence
    /// before that sample), or the track's start.
    public var encodeFrom: Int64 { isFirst ? 0 : start / AudioPieces.frameSize * AudioPieces.frameSize }
    /// The samples fed to the encoder: to the end of the post-roll, or of the track.
    public var encodeTo: Int64 {
        isLast ? total : (AudioPieces.joinPacket(after: end) + AudioPieces.postRollFrames) * AudioPieces.frameSize
    }
    /// The packets of the track the piece keeps (`nil`: to the end of the stream).
    public var firstPacket: Int64 { isFirst ? 0 : AudioPieces.joinPacket(after: start) }
    public var endPacket: Int64? { isLast ? nil : AudioPieces.joinPacket(after: end) }

    /// The same packets counted from the piece's encoder (its packet 0 is its priming):
    /// what the renderer keeps.
    public var keptLocalPackets: Range<Int64> {
        let shift = encodeFrom / AudioPieces.frameSize
        return (firstPacket - shift)..<((endPacket ?? Int64.max / 2) - shift)
    }
}
