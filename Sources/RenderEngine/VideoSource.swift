import CFFmpeg
import SessionKit

/// Decoded video frames of one media file in presentation order, on the source's own
/// clock: the first decoded frame is time 0 (docs/timeline.md; edit lists and B-frame delay
/// can put it elsewhere in the container).
final class VideoSource {
    let path: String
    private let input: InputContainer
    private let stream: UnsafeMutablePointer<AVStream>
    private let decoder: Decoder
    private let packet: Packet
    private var draining = false
    private var finished = false
    private var awaitingKeyframe = false
    /// Stream timestamp of the source clock's zero.
    private(set) var origin: Int64 = 0
    let timeBase: AVRational

    /// The first frame of a file (a still image's only one, HEIC photos through libheif), without seeking.
    static func firstFrame(path: String) throws -> Frame {
        if HEIFImage.isHEIF(path: path) { return try HEIFImage(path: path).decode() }
        let source = try VideoSource(.file(path), rewind: false, threads: .firstFrame)
        let frame = try Frame()
        guard let first = source.first else { throw EngineError("\(path): no decodable video frame") }
        try avCheck(av_frame_ref(frame.pointer, first.pointer), "av_frame_ref")
        return frame
    }

    /// The first frame, when the source decoded it to find its origin.
    private var first: Frame?

    convenience init(path: String, rewind: Bool = true) throws {
        try self.init(.file(path), rewind: rewind)
    }

    /// `knownOrigin`: the source clock's zero from the probe (`MediaInfo.videoOrigin`); an
    /// indexed file then starts without decoding its first frame (nor reading its first
    /// keyframe, which a shard far into a long clip does not need). `threads`: libavcodec's
    /// (bit-exact; frame threads give frames that many later).
    convenience init(_ media: MediaInput, rewind: Bool = true, knownOrigin: Rational? = nil, threads: Decoder.Threads = .frames(1)) throws {
        try self.init(opened: try InputContainer(media), rewind: rewind, knownOrigin: knownOrigin, threads: threads)
    }

    /// Decodes from a container already open: the probe reads the header and the first frame
    /// through one demuxer instead of two (docs/architecture.md, "Probes by content id").
    init(opened input: InputContainer, rewind: Bool = true, knownOrigin: Rational? = nil, threads: Decoder.Threads = .frames(1)) throws {
        let path = input.path
        self.path = path
        self.input = input
        guard let s = input.bestStream(AVMEDIA_TYPE_VIDEO) else { throw EngineError("\(path): no video stream") }
        stream = s
        timeBase = s.pointee.time_base
        guard timeBase.num > 0, timeBase.den > 0 else { throw EngineError("\(path): invalid time base") }
        // Only the chosen stream is demuxed.
        for other in input.streams where other != s { other.pointee.discard = AVDISCARD_ALL }
        decoder = try Decoder(stream: s, path: path, threads: threads, setsUpAtFirstPicture: true)
        packet = try Packet()
        if let knownOrigin, !input.rewindsByByte {
            origin = (knownOrigin * Rational(Int(timeBase.den)) / Rational(Int(timeBase.num))).floor
            return
        }
        let decoded = try Frame()
        guard try next(into: decoded) else { throw EngineError("\(path): no decodable video frame") }
        first = decoded
        origin = Self.timestamp(of: decoded)
        if rewind { try self.rewind() }
    }

    /// The end (exclusive) of the bytes of every sample decoded before a frame past
    /// `seconds` (on the source clock) can come out — samples up to that time plus the
    /// decoder's reordering delay and two frames — from the container's index; `nil`
    /// without an index. Only a hint for read-ahead: the demuxer still reads what it reads.
    func lastByteNeeded(through seconds: Rational) -> Int64? {
        let count = avformat_index_get_entries_count(stream)
        guard count > 0 else { return nil }
        let rate = stream.pointee.avg_frame_rate
        let fallback = Rational(1, 30) ?? .zero
        let frame = rate.num > 0 ? Rational(Int64(rate.den), Int64(rate.num)) ?? fallback : fallback
        let frames = Int(max(0, stream.pointee.codecpar.pointee.video_delay)) + 2
        let horizon = seconds + frame * Rational(frames)
        let limit = (horizon * Rational(Int(timeBase.den)) / Rational(Int(timeBase.num))).floor + 1 + origin
        var end: Int64 = 0
        for i in 0..<count {
            guard let entry = avformat_index_get_entry(stream, i) else { continue }
            if entry.pointee.timestamp <= limit { end = max(end, entry.pointee.pos + Int64(entry.pointee.size)) }
        }
        return end > 0 ? end : nil
    }

    /// Tells a ranged reader how far the render will read (`lastByteNeeded`).
    func limitReadAhead(through seconds: Rational, of media: MediaInput) {
        guard case .ranges(let reader, _) = media, let end = lastByteNeeded(through: seconds) else { return }
        reader.limitReadAhead(to: end)
    }

    /// The container time (seconds) of the source clock's zero.
    var originSeconds: Rational {
        Rational(reducing: Int128(origin) * Int128(timeBase.num), Int128(timeBase.den)) ?? .zero
    }

    /// Seconds on the source clock of a decoded frame.
    func time(of frame: Frame) -> Rational {
        let ts = Self.timestamp(of: frame) - origin
        return Rational(reducing: Int128(ts) * Int128(timeBase.num), Int128(timeBase.den)) ?? .zero
    }

    /// Positions the decoder so the next frames include the one on screen at `seconds`:
    /// the keyframe at or before it.
    func seek(to seconds: Rational) throws {
        guard seconds.isPositive else { return try rewind() }
        let ts = (seconds * Rational(Int(timeBase.den)) / Rational(Int(timeBase.num))).floor + origin
        try seek(toStreamTime: ts)
    }

    private func seek(toStreamTime ts: Int64) throws {
        try avCheck(av_seek_frame(input.context, stream.pointee.index, ts, AVSEEK_FLAG_BACKWARD), "av_seek_frame(\(path))")
        restart(atKeyframe: true)
    }

    /// After a seek the decoder starts afresh. A seek by time in a format without an index
    /// (MPEG-TS) can land mid-GOP or mid-packet: what precedes the next keyframe is skipped,
    /// not decoded into errors.
    private func restart(atKeyframe: Bool) {
        decoder.flush()
        draining = false
        finished = false
        awaitingKeyframe = atKeyframe
    }

    /// Restarts from the very first frame (when a seek landed past the target). Formats
    /// without an index (MPEG-TS) find times by bisecting the file and may land past the
    /// first keyframe or nowhere, so they go back to byte 0; indexed ones (MP4) by time.
    func rewind() throws {
        guard input.rewindsByByte else { return try seek(toStreamTime: origin) }
        try avCheck(av_seek_frame(input.context, -1, 0, AVSEEK_FLAG_BYTE), "av_seek_frame(\(path), byte 0)")
        restart(atKeyframe: false)
    }

    /// Decodes the next frame in presentation order; `false` at the end of the stream.
    func next(into frame: Frame) throws -> Bool {
        while true {
            if try decoder.receive(into: frame) { return true }
            if finished { return false }
            if draining {
                finished = true
                continue
            }
            let code = av_read_frame(input.context, packet.pointer)
            if code == AVError.eof {
                try decoder.send(nil)
                draining = true
                continue
            }
            if let error = input.readerError { throw error }
            // A damaged file: report it rather than render what is left of it.
            try avCheck(code, "av_read_frame(\(path))")
            defer { av_packet_unref(packet.pointer) }
            guard packet.pointer.pointee.stream_index == stream.pointee.index else { continue }
            if awaitingKeyframe {
                guard packet.pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 else { continue }
                awaitingKeyframe = false
            }
            do {
                try decoder.send(packet)
            } catch let error as AVError {
                throw input.readerError ?? EngineError("\(path): corrupt video data (\(error.message))")
            }
        }
    }

    private static func timestamp(of frame: Frame) -> Int64 { frame.bestEffortTimestamp ?? 0 }
}
