import CFFmpeg
import Foundation
import SessionKit

/// Renders the output audio track, or one piece of it (docs/timeline.md; docs/rendering.md,
/// "Audio in pieces"): per segment the source audio of the trimmed range, time-stretched by
/// the total speed with pitch preserved (`atempo`), exactly `n_s / F` long (cut or padded
/// with silence; silence without source audio), joined with short fades, and encoded as
/// AAC (48 kHz stereo) on the track's one frame grid. A piece encodes silence from the
/// frame holding its first sample, its own segments, and the head of the next segment up
/// to its post-roll; it keeps only the packets between its joins.
public struct AudioTrackRenderer: Sendable {
    public static let sampleRate = Int(AudioPieces.sampleRate)
    /// 2 ms fades at every segment edge: no click where two sounds meet.
    static let fadeSamples = 96

    /// The segments the piece reads, in order, at their places on the whole output: its
    /// own, then the one its post-roll reaches into.
    public let segments: [SegmentTimeline]
    public let frameDuration: Rational
    /// AAC bits per second.
    public let bitRate: Int
    public let layout: AudioPieceLayout

    public init(segments: [SegmentTimeline], frameDuration: Rational, bitRate: Int = EncoderSettings.defaultAudioBitRate,
                layout: AudioPieceLayout) {
        self.segments = segments
        self.frameDuration = frameDuration
        self.bitRate = bitRate
        self.layout = layout
    }

    /// The whole track of `timeline` as one piece.
    public init(timeline: Timeline) {
        let total = AudioPieces.sample(ofFrame: timeline.totalFrames, frameDuration: timeline.frameDuration)
        self.init(segments: timeline.segments, frameDuration: timeline.frameDuration, layout: AudioPieceLayout(start: 0, end: total, total: total))
    }

    /// `sources` maps a segment index to its media (segments without audio are silent).
    /// `check` is called between blocks and may throw to stop (a cancelled or handed-back task).
    public func render(sources: [Int: MediaInput], to path: String, check: () throws -> Void = {}) throws {
        let writer = try AudioChunkWriter(path: path, sampleRate: Self.sampleRate, bitRate: bitRate, keep: layout.keptLocalPackets)
        try render(sources: sources, into: writer, check: check)
    }

    /// The samples the encoder is given, from `layout.encodeFrom` to `layout.encodeTo`.
    func render(sources: [Int: MediaInput], into writer: some AudioSampleSink, check: () throws -> Void = {}) throws {
        // A piece that begins inside a segment feeds its encoder that segment's own samples
        // from `encodeFrom` (silence before the segment's start); one at a segment's start,
        // silence up to it.
        let firstSegment = segments.first.map { AudioPieces.sample(ofFrame: $0.outputStartFrame, frameDuration: frameDuration) } ?? layout.start
        let renderFrom = layout.renderFrom(firstSegment: firstSegment)
        try writer.appendSilence(Int(renderFrom - layout.encodeFrom))
        var position = renderFrom
        for segment in segments where position < layout.encodeTo {
            let first = AudioPieces.sample(ofFrame: segment.outputStartFrame, frameDuration: frameDuration)
            let count = Int(AudioPieces.sample(ofFrame: segment.outputStartFrame + segment.frameCount, frameDuration: frameDuration) - first)
            // A piece begins at a segment's start, or (the first) inside one that may be cut
            // there: it reads from a pre-roll on the resampler's grid and drops it.
            let skip = Int(position - first)
            guard skip == 0 || (skip > 0 && skip < count && position == renderFrom && AudioPieces.cutsInside(segment)) else {
                throw EngineError("audio: segment \(segment.index) starts at sample \(first), not at \(position) where the piece is")
            }
            let wanted = min(count, Int(layout.encodeTo - first))
            let readFrom = Int(AudioPieces.readFrom(offset: Int64(skip)))
            var placed = skip     // samples of the segment written, or dropped before the piece
            var read = readFrom   // samples of the segment read so far
            let fader = Fader(total: count)
            if segment.hasAudio, let input = sources[segment.index] {
                try SegmentAudio(input: input, segment: segment, sampleRate: Self.sampleRate, offset: Int64(readFrom)).read { left, right in
                    try check()
                    // The pre-roll: read, and dropped up to the piece's start.
                    let drop = max(0, min(left.count, skip - read))
                    read += left.count
                    let take = min(left.count - drop, wanted - placed)
                    guard take > 0 else { return drop == left.count }
                    let kept = drop..<(drop + take)
                    try writer.append(left: fader.apply(left[kept], at: placed), right: fader.apply(right[kept], at: placed))
                    placed += take
                    return placed < wanted
                }
            }
            if placed < wanted { try writer.appendSilence(wanted - placed) }
            position += Int64(wanted - skip)
        }
        guard position == layout.encodeTo else {
            throw EngineError("audio: the segments end at sample \(position), the piece needs \(layout.encodeTo)")
        }
        try writer.close()
    }
}

/// Fades in over the first and out over the last `AudioTrackRenderer.fadeSamples`.
struct Fader {
    let total: Int

    func apply(_ samples: ArraySlice<Float>, at offset: Int) -> [Float] {
        let n = AudioTrackRenderer.fadeSamples
        var out = Array(samples)
        for i in out.indices {
            let position = offset + i
            let edge = min(position, total - 1 - position)
            if edge < n { out[i] *= Float(edge) / Float(n) }
        }
        return out
    }
}

/// The decoded, trimmed, resampled and stretched audio of one segment.
struct SegmentAudio {
    let input: MediaInput
    let segment: SegmentTimeline
    let sampleRate: Int
    /// Output samples of the segment to start at (0: its start): on the resampler's grid,
    /// at speed 1 only (`AudioPieces.readFrom`).
    var offset: Int64 = 0

    var path: String { input.name }

    /// Seconds either side of the trim whose samples the read may touch: the seek lands on
    /// a packet before the trim start, and the resampler and tempo filters look ahead.
    static let sampleMargin = Rational(1)

    /// Calls `body` with blocks of planar stereo samples until it returns false or the audio ends.
    func read(_ body: ([Float], [Float]) throws -> Bool) throws {
        let origin = try segment.sourceOrigin ?? VideoSource(self.input, rewind: false, threads: .firstFrame).originSeconds
        let input = try InputContainer(self.input)
        guard let stream = input.bestStream(AVMEDIA_TYPE_AUDIO) else { return }
        for other in input.streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        if case .ranges(let reader, _) = self.input {
            // From the piece's own start in the segment (its pre-roll included).
            let skipped = Rational(Int(offset)) / Rational(sampleRate)
            let start = segment.trimStart + skipped + origin - Self.sampleMargin
            reader.expectReads(Self.sampleRanges(of: stream, from: start,
                                                 to: start + segment.trimDuration - skipped + Self.sampleMargin * Rational(2)))
        }
        let decoder = try Decoder(stream: stream, path: path)
        let tb = stream.pointee.time_base
        // Source-clock seconds → stream timestamps.
        func streamTime(_ seconds: Rational) -> Int64 {
            ((seconds + origin) * Rational(Int(tb.den)) / Rational(Int(tb.num))).floor
        }
        // At speed 1 output sample n of the segment is its source at trimStart + n / 48 kHz.
        let start = segment.trimStart + Rational(Int(offset)) / Rational(sampleRate), end = segment.trimStart + segment.trimDuration
        // Timestamps stay on the video's clock: audio that starts after the trim start is
        // preceded by silence (aresample's first_pts=0 pads the gap), so sound and picture
        // stay aligned (docs/timeline.md).
        var description = "atrim=start=\(decimal(start)):end=\(decimal(end)),asetpts=PTS-\(decimal(start))/TB,"
            + "aresample=\(sampleRate):first_pts=0"
        for factor in Self.tempoChain(segment.speed.doubleValue) {
            description += ",atempo=\(String(format: "%.12f", factor))"
        }
        // Mono is duplicated to both sides at full level (libswresample would place it in
        // the centre at −3 dB); other layouts are down-mixed with its standard coefficients
        // (5.1: L = FL + 0.707·C + 0.707·BL, likewise R; docs/timeline.md).
        if decoder.context.pointee.ch_layout.nb_channels == 1 { description += ",pan=stereo|c0=c0|c1=c0" }
        // Last, so negotiation cannot pick another layout after it.
        description += ",aformat=sample_fmts=fltp:channel_layouts=stereo"
        let graph = try AudioFilterGraph(decoder: decoder.context, timeBase: tb, description: description)
        try avCheck(av_seek_frame(input.context, stream.pointee.index, streamTime(start), AVSEEK_FLAG_BACKWARD), "av_seek_frame(audio)")
        let packet = try Packet()
        let frame = try Frame()
        let originTS = streamTime(.zero)
        var more = true
        var ended = false
        func drainGraph() throws {
            try graph.pull { out in
                guard more else { return }
                let n = Int(out.pointer.pointee.nb_samples)
                guard n > 0, out.pointer.pointee.format == AV_SAMPLE_FMT_FLTP.rawValue,
                      let l = out.pointer.pointee.extended_data[0], let r = out.pointer.pointee.extended_data[1] else {
                    throw EngineError("\(path): audio filter graph produced an unexpected sample format")
                }
                let left = l.withMemoryRebound(to: Float.self, capacity: n) { Array(UnsafeBufferPointer(start: $0, count: n)) }
                let right = r.withMemoryRebound(to: Float.self, capacity: n) { Array(UnsafeBufferPointer(start: $0, count: n)) }
                more = try body(left, right)
            }
        }
        while more && !ended {
            let code = av_read_frame(input.context, packet.pointer)
            if code == AVError.eof {
                try decoder.send(nil)
                ended = true
            } else {
                try avCheck(code, "av_read_frame(\(path))")
                defer { av_packet_unref(packet.pointer) }
                guard packet.pointer.pointee.stream_index == stream.pointee.index else { continue }
                do { try decoder.send(packet) } catch { throw EngineError("\(path): corrupt audio data (\(error))") }
            }
            while try decoder.receive(into: frame) {
                // Put the frame on the source clock so atrim cuts at the trim points.
                let ts = frame.pointer.pointee.best_effort_timestamp
                frame.pointer.pointee.pts = ts == CFFmpeg_AV_NOPTS_VALUE() ? CFFmpeg_AV_NOPTS_VALUE() : ts - originTS
                let past = frame.pointer.pointee.pts != CFFmpeg_AV_NOPTS_VALUE()
                    && Rational(reducing: Int128(frame.pointer.pointee.pts) * Int128(tb.num), Int128(tb.den)).map { $0 > end + Rational(1) } == true
                try graph.push(frame)
                av_frame_unref(frame.pointer)
                try drainGraph()
                if past { ended = true }
            }
        }
        try graph.push(nil)
        try drainGraph()
    }

    /// The bytes of the stream's samples between two times (seconds on the container's
    /// clock), from the container's index.
    static func sampleRanges(of stream: UnsafeMutablePointer<AVStream>, from start: Rational, to end: Rational) -> [Range<Int64>] {
        let tb = stream.pointee.time_base
        guard tb.num > 0, tb.den > 0 else { return [] }
        func ticks(_ seconds: Rational) -> Int64 { (seconds * Rational(Int(tb.den)) / Rational(Int(tb.num))).floor }
        let low = ticks(start), high = ticks(end)
        return (0..<avformat_index_get_entries_count(stream)).compactMap { i in
            guard let entry = avformat_index_get_entry(stream, i), entry.pointee.size > 0,
                  entry.pointee.timestamp >= low, entry.pointee.timestamp <= high else { return nil }
            return entry.pointee.pos..<(entry.pointee.pos + Int64(entry.pointee.size))
        }
    }

    private func decimal(_ r: Rational) -> String { String(format: "%.9f", r.doubleValue) }

    /// `atempo` takes 0.5 … 100 per instance in FFmpeg 5.1; chain instances beyond that.
    static func tempoChain(_ speed: Double) -> [Double] {
        var factors: [Double] = []
        var rest = speed
        while rest < 0.5 { factors.append(0.5); rest /= 0.5 }
        while rest > 100 { factors.append(100); rest /= 100 }
        if abs(rest - 1) > 1e-12 { factors.append(rest) }
        return factors
    }
}
