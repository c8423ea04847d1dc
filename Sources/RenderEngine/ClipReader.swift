import CFFmpeg
import Foundation
import SessionKit

/// One clip kept open for pictures at chosen times (docs/rendering.md, "Pictures at a
/// time"). It picks the same frame as `FrameSelector` (the last one shown at or before
/// t + 1 ms) but decodes less:
/// - it starts at the keyframe before the frame, found in the container's index;
/// - it reads the packets up to the frame first, so it knows which one is shown, and
///   discards every non-reference frame before it (nothing needs them);
/// - it stays open and positioned, so a later time in the same GOP decodes only the
///   frames between;
/// - with a tolerance it shows the nearest keyframe within it: one frame to decode.
/// Containers without an index, or packets without timestamps, are not for it: `open`
/// returns nil and the caller uses `FrameSelector`.
final class ClipReader {
    /// A decoded picture and its time on the source clock.
    struct Picture {
        let frame: Frame
        let time: Rational
    }

    private let input: InputContainer
    private let stream: UnsafeMutablePointer<AVStream>
    private let decoder: Decoder
    private let timeBase: AVRational
    /// Stream timestamp of the source clock's zero.
    private let origin: Int64
    /// Decode timestamps of the index's keyframes, increasing.
    private let keyframes: [Int64]
    /// Presentation timestamps of keyframes already read, by keyframe number.
    private var keyframePTS: [Int: Int64] = [:]

    /// The group of pictures being decoded (its keyframe's number); nil: start afresh.
    private var group: Int?
    /// Presentation timestamps of the group's packets read so far, in decode order.
    private var readPTS: [Int64] = []
    private var lastReadDTS: Int64 = .min
    /// The decode time the next packet must have after a seek.
    private var expectedKeyframe: Int64?
    private var demuxerEnded = false
    /// The decoder was drained: it must be flushed and restarted at a keyframe.
    private var drained = false
    /// The last frame asked for; a later time in the group continues from it.
    private var lastTarget: Int64 = .min
    /// The group and time of the last exact request, kept across restarts: a request
    /// later in the same group is a scrub, and keeps the decoder going for the next one.
    private var asked: (group: Int, limit: Int64)?
    /// Decoded frames at or after the last target, in presentation order.
    private var decoded: [(pts: Int64, frame: Frame)] = []
    private let packet: Packet
    /// Recently decoded frames of every open clip, shared; this clip's entries are under `key`.
    private let memo: DecodedFrames
    private let key: String

    private init(input: InputContainer, stream: UnsafeMutablePointer<AVStream>, decoder: Decoder, origin: Int64, keyframes: [Int64],
                 memo: DecodedFrames, key: String) throws {
        self.memo = memo
        self.key = key
        self.input = input
        self.stream = stream
        self.decoder = decoder
        self.origin = origin
        self.keyframes = keyframes
        timeBase = stream.pointee.time_base
        packet = try Packet()
    }

    /// Opens `media` whose source clock starts at `origin` (seconds of container time,
    /// `MediaInfo.videoOrigin`), decoding with `threads` frame threads; nil when the
    /// container has no keyframe index.
    static func open(_ media: MediaInput, origin: Rational, threads: Int, memo: DecodedFrames, key: String) throws -> ClipReader? {
        LibavLog.quiet()
        let input = try InputContainer(media)
        guard !input.rewindsByByte, let stream = input.bestStream(AVMEDIA_TYPE_VIDEO) else { return nil }
        let timeBase = stream.pointee.time_base
        guard timeBase.num > 0, timeBase.den > 0 else { return nil }
        for other in input.streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        var keyframes: [Int64] = []
        for i in 0..<avformat_index_get_entries_count(stream) {
            guard let entry = avformat_index_get_entry(stream, i), entry.pointee.flags & AVINDEX_KEYFRAME != 0 else { continue }
            if entry.pointee.timestamp > (keyframes.last ?? .min) { keyframes.append(entry.pointee.timestamp) }
        }
        guard !keyframes.isEmpty else { return nil }
        let decoder = try Decoder(stream: stream, path: media.name, threads: .frames(threads))
        let originTS = (origin * Rational(Int(timeBase.den)) / Rational(Int(timeBase.num))).floor
        return try ClipReader(input: input, stream: stream, decoder: decoder, origin: originTS, keyframes: keyframes, memo: memo, key: key)
    }

    private func timestamp(_ seconds: Rational) -> Int64 {
        (seconds * Rational(Int(timeBase.den)) / Rational(Int(timeBase.num))).floor + origin
    }

    private func seconds(_ ts: Int64) -> Rational {
        Rational(reducing: Int128(ts - origin) * Int128(timeBase.num), Int128(timeBase.den)) ?? .zero
    }

    // MARK: Choosing the frame

    private func nearestKeyframe(to t: Rational, tolerance: Rational) throws -> Int? {
        let target = timestamp(t), low = timestamp(t - tolerance), high = timestamp(t + tolerance)
        var best: (k: Int, distance: Int64)?
        var k = try keyframe(shownBy: high)
        while let number = k {
            let pts = try presentationTime(ofKeyframe: number)
            if pts < low { break }
            if pts <= high {
                let distance = abs(pts - target)
                if best.map({ distance <= $0.distance }) ?? true { best = (number, distance) }
            }
            k = number > 0 ? number - 1 : nil
        }
        return best?.k
    }

    /// The last keyframe shown at or before stream time `limit`; nil when none is.
    private func keyframe(shownBy limit: Int64) throws -> Int? {
        // Decode times never exceed presentation times: no keyframe past the last one
        // decoded by `limit` is shown by it.
        var k = firstKeyframe { $0 > limit } - 1
        while k >= 0 {
            if try presentationTime(ofKeyframe: k) <= limit { return k }
            k -= 1
        }
        return nil
    }

    private func keyframeNumber(decodedAt dts: Int64) -> Int? {
        let k = firstKeyframe { $0 >= dts }
        return k < keyframes.count && keyframes[k] == dts ? k : nil
    }

    /// The number of the first keyframe whose decode time satisfies `after` (which holds
    /// from some keyframe on), or the count of keyframes.
    private func firstKeyframe(_ after: (Int64) -> Bool) -> Int {
        var low = 0, high = keyframes.count
        while low < high {
            let mid = (low + high) / 2
            if after(keyframes[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// Reads keyframe `k`'s packet once to learn its presentation time (an index holds
    /// decode times); moves the demuxer, so the group restarts afterwards.
    private func presentationTime(ofKeyframe k: Int) throws -> Int64 {
        if let known = keyframePTS[k] { return known }
        try seek(toKeyframe: k)
        guard try readPacket(), let pts = validPTS(packet.pointer) else {
            av_packet_unref(packet.pointer)
            throw ClipReaderUnsuitable()
        }
        av_packet_unref(packet.pointer)
        keyframePTS[k] = pts
        group = nil
        return pts
    }

    // MARK: Decoding

    /// The frame shown at `t` (the last one at or before t + 1 ms; before the first
    /// frame, the first).
    func picture(at t: Rational) throws -> Picture {
        let limit = timestamp(t + FrameSelector.tolerance)
        let k = try keyframe(shownBy: limit) ?? 0
        let scrubbing = asked.map { $0.group == k && $0.limit <= limit } ?? false
        asked = (k, limit)
        if group != k || drained || lastTarget > limit { try restart(atKeyframe: k) }
        // Every packet decoded by `limit` is read before any is sent: then the frame
        // shown is known, and the non-reference frames before it are not decoded.
        var batch: [Packet] = []
        while !demuxerEnded, lastReadDTS <= limit {
            guard try readPacket() else { break }
            batch.append(try takePacket())
        }
        guard let target = readPTS.filter({ $0 <= limit }).max() ?? readPTS.min() else {
            throw EngineError("\(input.path): no frame at \(formatSeconds(t.doubleValue))")
        }
        if let kept = memo.frame(key, target) {
            group = nil   // the packets read are not sent: the decoder is behind the demuxer
            return Picture(frame: kept, time: seconds(target))
        }
        lastTarget = target
        decoded.removeAll { $0.pts < target }
        for held in batch {
            guard let pts = validPTS(held.pointer) else { throw ClipReaderUnsuitable() }
            try send(held, discardingNonReference: pts < target, keepingFrom: target)
        }
        let picture = try collect(target, keepDecoding: scrubbing)
        memo.keep(picture.frame, key, target)
        return picture
    }

    /// Keyframe `k`'s picture alone: read, decoded and drained, nothing else.
    func keyframePicture(_ k: Int) throws -> Picture {
        let shown = try presentationTime(ofKeyframe: k)
        if let kept = memo.frame(key, shown) { return Picture(frame: kept, time: seconds(shown)) }
        try restart(atKeyframe: k)
        guard try readPacket(), let pts = validPTS(packet.pointer) else { throw ClipReaderUnsuitable() }
        let held = try takePacket()
        lastTarget = pts
        try send(held, discardingNonReference: false, keepingFrom: pts)
        try drain(keepingFrom: pts)
        guard pts == shown, let found = decoded.first(where: { $0.pts == pts }) else { throw ClipReaderUnsuitable() }
        memo.keep(found.frame, key, pts)
        return Picture(frame: found.frame, time: seconds(pts))
    }

    /// The picture of the keyframe nearest `t` within `tolerance`; nil when none is within.
    func keyframePicture(near t: Rational, tolerance: Rational) throws -> Picture? {
        guard let k = try nearestKeyframe(to: t, tolerance: tolerance) else { return nil }
        return try keyframePicture(k)
    }

    /// Decodes the keyframes nearest these times (within their tolerances) into the
    /// decoded-frame memo in one pass: their packets one after another, then a drain.
    /// A keyframe needs no other frame, so frame threads decode several at once, where
    /// one at a time each waits for the last. What does not come out is decoded alone later.
    func prepareKeyframes(near times: [(time: Rational, tolerance: Rational)]) throws {
        // Called for each picture in turn: a batch starts at a picture not decoded yet.
        guard let (t, tolerance) = times.first, let first = try nearestKeyframe(to: t, tolerance: tolerance),
              memo.frame(key, try presentationTime(ofKeyframe: first)) == nil else { return }
        var wanted: [Int: Int64] = [:]
        for (t, tolerance) in times {
            guard let k = try nearestKeyframe(to: t, tolerance: tolerance) else { continue }
            let pts = try presentationTime(ofKeyframe: k)
            if memo.frame(key, pts) == nil { wanted[k] = pts }
        }
        // As many as the memo holds until they are drawn (the first ones; the rest are
        // decoded by a later batch or one by one).
        let par = stream.pointee.codecpar.pointee
        // Two bytes a sample above 8 bits, and when the format is not known yet.
        let depth = av_pix_fmt_desc_get(AVPixelFormat(rawValue: par.format))?.pointee.comp.0.depth ?? 16
        let bytesPerSample = depth > 8 ? 2 : 1
        let frameBytes = max(1, Int(par.width) * Int(par.height) * 3 / 2 * bytesPerSample)
        let batch = wanted.keys.sorted { abs($0 - first) < abs($1 - first) }   // the first picture's keyframe first
        // Frame threads decode the batch a round at a time: a part round costs a whole one.
        let threads = max(1, Int(decoder.context.pointee.thread_count))
        let fits = max(1, memo.budget / frameBytes)
        for k in batch.dropFirst(fits >= threads ? fits - fits % threads : fits) { wanted[k] = nil }
        guard wanted.count > 1 else { return }
        let shown = Set(wanted.values)
        for (position, k) in wanted.keys.sorted().enumerated() {
            if position == 0 {
                try restart(atKeyframe: k)
            } else {
                // Only the demuxer moves: the decoder goes on, so the keyframes overlap.
                try avCheck(av_seek_frame(input.context, stream.pointee.index, seekTime(ofKeyframe: k), AVSEEK_FLAG_BACKWARD),
                            "av_seek_frame(\(input.path))")
                expectedKeyframe = keyframes[k]
            }
            guard try readPacket() else { break }
            decoder.context.pointee.skip_frame = AVDISCARD_DEFAULT
            try decoder.send(packet)
            av_packet_unref(packet.pointer)
            try receiveAll { pts, frame in if shown.contains(pts) { memo.keep(frame, key, pts) } }
        }
        try decoder.send(nil)
        drained = true
        try receiveAll { pts, frame in if shown.contains(pts) { memo.keep(frame, key, pts) } }
    }

    /// Gets the target out of the decoder, which holds frames back (frame threads until
    /// the next packet arrives, reordering until later frames are decoded). A scrub sends
    /// the packets after it, which its next request needs; a jump drains the decoder,
    /// which decodes nothing more, and the next request starts at its keyframe.
    private func collect(_ target: Int64, keepDecoding: Bool) throws -> Picture {
        while true {
            if let found = decoded.first(where: { $0.pts == target }) { return Picture(frame: found.frame, time: seconds(target)) }
            // Frames come out in presentation order: a later one without the target means
            // the decoder numbers frames otherwise than the container.
            if drained || decoded.contains(where: { $0.pts > target }) { throw ClipReaderUnsuitable() }
            if keepDecoding, !demuxerEnded, try readPacket() {
                try send(try takePacket(), discardingNonReference: false, keepingFrom: target)
            } else {
                try drain(keepingFrom: target)
            }
        }
    }

    private func send(_ held: Packet, discardingNonReference: Bool, keepingFrom target: Int64) throws {
        // Read per packet by the decoder (and copied to each frame thread as it is handed one).
        decoder.context.pointee.skip_frame = discardingNonReference ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
        do {
            try decoder.send(held)
        } catch let error as AVError {
            throw input.readerError ?? EngineError("\(input.path): corrupt video data (\(error.message))")
        }
        try receive(keepingFrom: target)
    }

    private func drain(keepingFrom target: Int64) throws {
        try decoder.send(nil)
        drained = true
        try receive(keepingFrom: target)
    }

    private func receive(keepingFrom target: Int64) throws {
        try receiveAll { pts, frame in if pts >= target { decoded.append((pts, frame)) } }
    }

    private func receiveAll(_ take: (Int64, Frame) -> Void) throws {
        while true {
            let frame = try Frame()
            guard try decoder.receive(into: frame) else { return }
            memo.framesDecoded += 1
            take(frame.bestEffortTimestamp ?? .min, frame)
        }
    }

    private func restart(atKeyframe k: Int) throws {
        try seek(toKeyframe: k)
        group = k
        readPTS = []
        lastReadDTS = .min
        demuxerEnded = false
        drained = false
        lastTarget = .min
        decoded = []
    }

    /// Positions the demuxer at keyframe `k`. MP4's backward seek finds the last keyframe
    /// *shown* by the time given, others the last one *decoded* by it: a time just before
    /// the next keyframe's decode time is both (a keyframe is shown before the next one
    /// is decoded). The packet read next is checked to be the keyframe.
    private func seek(toKeyframe k: Int) throws {
        try avCheck(av_seek_frame(input.context, stream.pointee.index, seekTime(ofKeyframe: k), AVSEEK_FLAG_BACKWARD),
                    "av_seek_frame(\(input.path))")
        decoder.flush()
        group = nil
        expectedKeyframe = keyframes[k]
    }

    private func seekTime(ofKeyframe k: Int) -> Int64 {
        k + 1 < keyframes.count ? keyframes[k + 1] - 1 : Int64.max / 2
    }

    /// Reads the next packet of the stream into `packet`, noting its times; false at the end.
    private func readPacket() throws -> Bool {
        while true {
            let code = av_read_frame(input.context, packet.pointer)
            if code == AVError.eof {
                demuxerEnded = true
                return false
            }
            if let error = input.readerError { throw error }
            try avCheck(code, "av_read_frame(\(input.path))")
            let p = packet.pointer.pointee
            guard p.stream_index == stream.pointee.index else {
                av_packet_unref(packet.pointer)
                continue
            }
            if let expected = expectedKeyframe {
                expectedKeyframe = nil
                guard p.dts == expected, p.flags & AV_PKT_FLAG_KEY != 0 else {
                    av_packet_unref(packet.pointer)
                    throw ClipReaderUnsuitable()
                }
            }
            if p.dts != CFFmpeg_AV_NOPTS_VALUE() { lastReadDTS = p.dts }
            // A keyframe passed on the way is noted: learning its time later would move the demuxer.
            if p.flags & AV_PKT_FLAG_KEY != 0, let pts = validPTS(packet.pointer), let k = keyframeNumber(decodedAt: p.dts) {
                keyframePTS[k] = pts
            }
            // Packets the container marks for discarding (edit lists) are decoded, never shown.
            if p.flags & AV_PKT_FLAG_DISCARD == 0, let pts = validPTS(packet.pointer) { readPTS.append(pts) }
            return true
        }
    }

    /// The packet just read, moved out of the reading buffer to be kept.
    private func takePacket() throws -> Packet {
        let held = try Packet()
        av_packet_move_ref(held.pointer, packet.pointer)
        return held
    }

    private func validPTS(_ p: UnsafeMutablePointer<AVPacket>) -> Int64? {
        p.pointee.pts == CFFmpeg_AV_NOPTS_VALUE() ? nil : p.pointee.pts
    }
}

/// The clip does not suit `ClipReader` (no timestamps, frames numbered otherwise than
/// their packets): its pictures come from `FrameSelector`.
struct ClipReaderUnsuitable: Error {}
