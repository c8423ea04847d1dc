import CFFmpeg
import Foundation
import SessionKit

/// The finished prefix of an export as HLS with fragmented-MP4 segments, written while the
/// chunks arrive (docs/rendering.md, "Live preview"): one media segment per video chunk,
/// its packets copied (no re-encode), with the audio track's packets of the same range.
/// It reads nothing itself: the job's `Assembly` hands it every packet as it reads them
/// (`take`), in output order, so a chunk after a gap waits for the gap as the file does.
/// Everything goes into one growing file (`preview.mp4`: the init segment, then a
/// `moof`+`mdat` per segment) whose byte ranges `index.json` lists; the index is replaced
/// (rename) after each segment's bytes are flushed, so a reader never sees a range that
/// is not all there. Used from one thread.
public final class LivePreview {
    /// One media segment: its bytes in `preview.mp4` and the frames it holds.
    public struct Segment: Codable, Sendable, Equatable {
        public var offset: Int64
        public var length: Int64
        public var firstFrame: Int64
        public var frames: Int64
        public var seconds: Double
    }

    /// What is published so far (`index.json`).
    public struct Index: Codable, Sendable, Equatable {
        /// The longest segment rounded up, fixed for the playlist's life (RFC 8216 4.3.3.1).
        public var targetSeconds: Int
        /// The init segment: `preview.mp4`'s first bytes (0 until the first segment).
        public var initLength: Int64 = 0
        public var segments: [Segment] = []
        /// Every segment is there (`#EXT-X-ENDLIST`).
        public var ended = false

        public static let fileName = "index.json"
        public static let mediaFileName = "preview.mp4"

        /// The index in `directory`, nil if there is none yet.
        public static func read(in directory: String) throws -> Index? {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(fileName)
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            return try JSONDecoder().decode(Index.self, from: Data(contentsOf: url))
        }
    }

    public private(set) var index: Index
    private let directory: String
    private let chunks: [Assembler.VideoChunk]
    private let hasAudio: Bool
    private let frameDuration: Rational
    /// The next video chunk to publish, and the video packets read of it and after it.
    private var next = 0
    private var video: [[Packet]]
    private var writer: Writer?

    private final class Writer {
        let output: OutputContainer
        let video: UnsafeMutablePointer<AVStream>
        let audio: UnsafeMutablePointer<AVStream>?
        /// Audio packets read and not written yet (the next segments'), on `audioTimeBase`.
        var queuedAudio: [Packet] = []
        var audioTimeBase = AVRational(num: 1, den: 48000)
        var audioEnded: Bool
        /// Where the file's bytes end: the next segment starts here.
        var written: Int64 = 0

        init(output: OutputContainer, video: UnsafeMutablePointer<AVStream>, audio: UnsafeMutablePointer<AVStream>?) throws {
            self.output = output
            self.video = try output.addStream(copying: video)
            self.audio = try audio.map { try output.addStream(copying: $0) }
            audioEnded = audio == nil
        }
    }

    /// `directory` is made if need be; what it holds is the preview's alone. `hasAudio`:
    /// the track has sound, whose packets come with the video's.
    public init(frameDuration: Rational, video chunks: [Assembler.VideoChunk], hasAudio: Bool, directory: String) throws {
        guard !chunks.isEmpty else { throw EngineError("a preview needs video chunks") }
        self.frameDuration = frameDuration
        self.chunks = chunks
        self.hasAudio = hasAudio
        self.directory = directory
        video = Array(repeating: [], count: chunks.count)
        let longest = Double(chunks.map(\.frameCount).max() ?? 0) * frameDuration.doubleValue
        index = Index(targetSeconds: max(1, Int(longest.rounded(.up))))
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try publish()
    }

    // MARK: Fed by the assembly

    /// The streams are known (the first chunk and the first audio piece are open).
    func open(video: UnsafeMutablePointer<AVStream>, audio: UnsafeMutablePointer<AVStream>?) throws {
        guard writer == nil else { return }
        guard (audio != nil) == hasAudio else { throw EngineError("the preview expected \(hasAudio ? "" : "no ")audio") }
        let path = URL(fileURLWithPath: directory).appendingPathComponent(Index.mediaFileName).path
        let output = try OutputContainer(path: path, format: "mp4")
        let opened = try Writer(output: output, video: video, audio: audio)
        // As libavformat's HLS muxer writes fMP4: each fragment cut by hand at a chunk's end,
        // the index (with its edit lists) written with the first fragment.
        try output.writeHeader(options: ["movflags": "+frag_custom+dash+delay_moov"])
        writer = opened
    }

    /// A video packet of chunk `chunk`, on the output's clock in `timeBase`.
    func take(video packet: Packet, chunk: Int, on timeBase: AVRational) throws {
        guard let writer, chunks.indices.contains(chunk) else { throw EngineError("the preview was fed before it was opened") }
        av_packet_rescale_ts(packet.pointer, timeBase, writer.video.pointee.time_base)
        packet.pointer.pointee.stream_index = writer.video.pointee.index
        video[chunk].append(packet)
        try publishReady()
    }

    /// The audio track's next packet, on `timeBase`.
    func take(audio packet: Packet, on timeBase: AVRational) throws {
        guard let writer else { throw EngineError("the preview was fed before it was opened") }
        writer.audioTimeBase = timeBase
        writer.queuedAudio.append(packet)
        try publishReady()
    }

    func audioEnded() throws {
        writer?.audioEnded = true
        try publishReady()
    }

    /// Marks the preview complete once every segment is published (`#EXT-X-ENDLIST`).
    public func finish() throws {
        try publishReady()
        guard next == chunks.count else { throw EngineError("the preview in \(directory) has \(next) of \(chunks.count) segments") }
        try writer?.output.close()
        writer = nil
        index.ended = true
        try publish()
    }

    // MARK: Writing

    /// Publishes every segment whose chunk's frames are all read, and whose audio is.
    private func publishReady() throws {
        guard let writer else { return }
        var published = false
        while next < chunks.count, Int64(video[next].count) == chunks[next].frameCount,
              let audio = audioBefore(sample: audioEnd(ofChunk: next), writer: writer) {
            try writeSegment(chunk: next, video: video[next], audio: audio, writer: writer)
            video[next] = []
            next += 1
            published = true
        }
        if published { try publish() }
    }

    /// The audio track's sample where chunk `index`'s range ends: its last segment takes the rest.
    private func audioEnd(ofChunk index: Int) -> Int64? {
        guard index + 1 < chunks.count else { return nil }
        return AudioPieces.sample(ofFrame: chunks[index + 1].outputStartFrame, frameDuration: frameDuration)
    }

    /// The audio packets that start before sample `end` (all that are left when nil), or
    /// nil while the track may still bring more of them.
    private func audioBefore(sample end: Int64?, writer: Writer) -> [Packet]? {
        guard writer.audio != nil else { return [] }
        let samples = AVRational(num: 1, den: Int32(AudioPieces.sampleRate))
        let timeBase = writer.audioTimeBase
        func isBefore(_ packet: Packet) -> Bool {
            guard let end else { return true }
            return av_rescale_q(packet.pointer.pointee.pts, timeBase, samples) < end
        }
        // Complete once a packet at or past `end` is queued, or the track has ended.
        guard writer.audioEnded || !(writer.queuedAudio.last.map(isBefore) ?? true) else { return nil }
        let count = writer.queuedAudio.prefix(while: isBefore).count
        defer { writer.queuedAudio.removeFirst(count) }
        return Array(writer.queuedAudio.prefix(count))
    }

    private func writeSegment(chunk number: Int, video: [Packet], audio: [Packet], writer: Writer) throws {
        let chunk = chunks[number]
        var sound: [Packet] = []
        if let stream = writer.audio {
            for packet in audio {
                av_packet_rescale_ts(packet.pointer, writer.audioTimeBase, stream.pointee.time_base)
                packet.pointer.pointee.stream_index = stream.pointee.index
                sound.append(packet)
            }
        }
        // Interleaved by decode time, then cut: the fragment holds exactly this chunk's range.
        var (v, a) = (0, 0)
        while v < video.count || a < sound.count {
            let takeVideo: Bool
            if v == video.count { takeVideo = false } else if a == sound.count { takeVideo = true } else {
                takeVideo = av_compare_ts(video[v].pointer.pointee.dts, writer.video.pointee.time_base,
                                          sound[a].pointer.pointee.dts, writer.audio?.pointee.time_base ?? writer.video.pointee.time_base) <= 0
            }
            let packet = takeVideo ? video[v] : sound[a]
            if takeVideo { v += 1 } else { a += 1 }
            try avCheck(av_write_frame(writer.output.context, packet.pointer), "av_write_frame(preview)")
        }
        let pb = writer.output.context.pointee.pb
        if number == 0 {
            // With `delay_moov` the first flush writes the init segment (`ftyp`, `moov`) alone.
            try avCheck(av_write_frame(writer.output.context, nil), "av_write_frame(preview, init)")
            avio_flush(pb)
            index.initLength = avio_tell(pb)
            writer.written = index.initLength
        }
        try avCheck(av_write_frame(writer.output.context, nil), "av_write_frame(preview, flush)")
        avio_flush(pb)
        let end = avio_tell(pb)
        let start = writer.written
        guard end > start else { throw EngineError("the preview's segment \(number) is empty") }
        writer.written = end
        index.segments.append(Segment(offset: start, length: end - start, firstFrame: chunk.outputStartFrame, frames: chunk.frameCount,
                                      seconds: Double(chunk.frameCount) * frameDuration.doubleValue))
    }

    /// Replaces `index.json`: written beside and renamed, so a reader sees the old or the new.
    private func publish() throws {
        let url = URL(fileURLWithPath: directory).appendingPathComponent(Index.fileName)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try encoder.encode(index).write(to: url, options: .atomic)
    }
}

/// An HLS media playlist (RFC 8216) of a preview: an EVENT playlist that grows, ended when
/// the preview is. `uri` names the init segment (nil) and each media segment (its number).
public enum PreviewPlaylist {
    public static func text(of index: LivePreview.Index, uri: (Int?) -> String) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(index.targetSeconds)", "#EXT-X-PLAYLIST-TYPE:EVENT",
                     "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-INDEPENDENT-SEGMENTS"]
        if !index.segments.isEmpty { lines.append("#EXT-X-MAP:URI=\"\(uri(nil))\"") }
        for (number, segment) in index.segments.enumerated() {
            lines.append(String(format: "#EXTINF:%.6f,", segment.seconds))
            lines.append(uri(number))
        }
        if index.ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }
}
