import CFFmpeg
import Foundation
import SessionKit

/// Joins the video chunks (no re-encode) and the audio track into the final MP4
/// (docs/rendering.md, "Assembly"): continuous timestamps, parameter sets checked, `moov`
/// at the front in space reserved for it, the session's creation date and location,
/// written under a temporary name. `Assembly` does it as the chunks arrive.
public struct Assembler: Sendable {
    public struct VideoChunk: Sendable {
        public var path: String
        /// Where the chunk's first frame lands on the output.
        public var outputStartFrame: Int64
        public var frameCount: Int64

        public init(path: String, outputStartFrame: Int64, frameCount: Int64) {
            self.path = path
            self.outputStartFrame = outputStartFrame
            self.frameCount = frameCount
        }
    }

    public var frameDuration: Rational
    public var creationDate: Date?
    public var location: Location?

    public init(frameDuration: Rational, creationDate: Date?, location: Location?) {
        self.frameDuration = frameDuration
        self.creationDate = creationDate
        self.location = location
    }

    /// Writes `path` (complete, or not at all) from chunks that are all there. `audio`:
    /// the pieces of the audio track, in order, `audioSamples` long.
    public func assemble(video chunks: [VideoChunk], audio: [String], audioSamples: Int64 = 0, to path: String) throws {
        try Assembly(self, video: chunks, audio: audio, audioSamples: audioSamples, to: path).writeAll()
    }

    /// Bytes reserved for `moov` before the media data: enough for any index of this many
    /// samples (docs/rendering.md, "Assembly"). Per sample at most: its size (`stsz`, 4),
    /// a decode-time run (`stts`, 8), a composition offset run (`ctts`, 8), a sync entry
    /// (`stss`, 4), a chunk offset (`co64`, 8) and sample-to-chunk run (`stsc`, 12), a
    /// dependency byte (`sdtp`, 1) and a sample-group run (`sbgp`, 8): 53 bytes; plus 8 KiB
    /// for the boxes of fixed size, the decoder configurations and the metadata.
    public static func indexBound(videoFrames: Int64, audioSamples: Int64) -> Int64 {
        let audioPackets = audioSamples > 0 ? (audioSamples + 2 * AudioPieces.frameSize - 1) / AudioPieces.frameSize + 1 : 0
        return 8192 + 53 * (videoFrames + audioPackets)
    }

    func makeOutput(at path: String) throws -> OutputContainer {
        let output = try OutputContainer(path: path, format: "mp4")
        output.context.pointee.flags |= AVFMT_FLAG_BITEXACT
        setMetadata(output)
        return output
    }

    /// The least common multiple of 48,000 and the frame rate's denominator: each track's
    /// length is a whole number of ticks.
    var movieTimescale: Int64 {
        get throws {
            let frames = frameDuration.denominator, rate = AudioPieces.sampleRate
            var (a, b) = (frames, rate)
            while b != 0 { (a, b) = (b, a % b) }
            let lcm = frames / a * rate
            guard lcm <= Int64(Int32.max) else { throw EngineError("frame duration \(frameDuration) and 48 kHz have no common clock") }
            return lcm
        }
    }

    var frameTimeBase: AVRational {
        get throws {
            guard let num = Int32(exactly: frameDuration.numerator), let den = Int32(exactly: frameDuration.denominator) else {
                throw EngineError("frame duration \(frameDuration) does not fit a time base")
            }
            return AVRational(num: num, den: den)
        }
    }

    private func setMetadata(_ output: OutputContainer) {
        if let date = creationDate {
            let text = date.formatted(SessionDocument.iso8601)
            av_dict_set(&output.context.pointee.metadata, "creation_time", text, 0)
        }
        if let location {
            av_dict_set(&output.context.pointee.metadata, "location", Self.iso6709(location), 0)
        }
    }

    /// `+48.8584+002.2945/` (and altitude when known), as the mov muxer's ©xyz expects.
    static func iso6709(_ l: Location) -> String {
        func signed(_ v: Double, _ integerDigits: Int) -> String {
            let text = String(format: "%0\(integerDigits + 5)" + ".4f", abs(v))
            return (v < 0 ? "-" : "+") + text
        }
        var s = signed(l.latitude, 2) + signed(l.longitude, 3)
        if let alt = l.altitude { s += (alt < 0 ? "-" : "+") + String(format: "%.3f", abs(alt)) }
        return s + "/"
    }
}

/// One step of reading chunks that arrive over time.
enum ChunkStep {
    case packet(Packet)
    /// The next chunk is not there yet.
    case waiting
    case end
}

/// The packets of one stream of several chunk files, in order, each file opened once it is
/// there; every file must carry the first's decoder configuration (`mismatch` says why
/// not). Yields each packet with the index of the file it came from.
final class ArrivingChunks {
    let first: ChunkReader
    private let paths: [String]
    private let type: AVMediaType
    private let mismatch: (Int) -> String
    private var index = 0
    private var reader: ChunkReader?
    /// Files opened so far: each chunk once.
    private(set) var opened = 1

    /// Opens the first file, which must be there.
    init(paths: [String], type: AVMediaType, mismatch: @escaping (Int) -> String) throws {
        guard let head = paths.first else { throw EngineError("nothing to assemble: no chunks") }
        self.paths = paths
        self.type = type
        self.mismatch = mismatch
        first = try ChunkReader(path: head, type: type)
        reader = first
    }

    func next(isReady: (String) -> Bool) throws -> (ChunkStep, file: Int) {
        while index < paths.count {
            if let current = reader {
                if let packet = try current.next() {
                    av_packet_rescale_ts(packet.pointer, current.stream.pointee.time_base, first.stream.pointee.time_base)
                    return (.packet(packet), index)
                }
                reader = nil
                index += 1
                continue
            }
            guard isReady(paths[index]) else { return (.waiting, index) }
            let next = try ChunkReader(path: paths[index], type: type, parameters: .fromHeader)
            guard next.extradata == first.extradata else { throw EngineError(mismatch(index)) }
            reader = next
            opened += 1
        }
        return (.end, index)
    }
}

/// The video packets of every chunk in order, with timestamps moved onto the output's
/// clock; each chunk's parameter sets must match the first chunk's.
final class ConcatenatedVideo {
    private let chunks: [Assembler.VideoChunk]
    private let files: ArrivingChunks
    private let frameTimeBase: AVRational
    var first: ChunkReader { files.first }
    var opened: Int { files.opened }

    /// Opens the first chunk, which must be there.
    init(chunks: [Assembler.VideoChunk], frameTimeBase: AVRational) throws {
        self.chunks = chunks
        files = try ArrivingChunks(paths: chunks.map(\.path), type: AVMEDIA_TYPE_VIDEO) { index in
            "chunk \(index) (\(chunks[index].path)) has different H.264 parameter sets from chunk 0; "
                + "chunks of one job must share encoder settings and engine version"
        }
        self.frameTimeBase = frameTimeBase
    }

    /// The clock of the chunk being read.
    private var clock: (file: Int, clock: ChunkClock)?
    /// The chunk of the packet `next` returned last.
    var chunk: Int? { clock?.file }

    /// The next packet on `outputTimeBase`.
    func next(on outputTimeBase: AVRational, isReady: (String) -> Bool) throws -> ChunkStep {
        let (step, file) = try files.next(isReady: isReady)
        guard case .packet(let packet) = step else { return step }
        if clock?.file != file {
            clock = (file, ChunkClock(firstFrame: chunks[file].outputStartFrame, frameTimeBase: frameTimeBase,
                                      reorderDelay: first.stream.pointee.codecpar.pointee.video_delay, on: outputTimeBase))
        }
        clock?.clock.place(packet, from: first.stream.pointee.time_base)
        return step
    }
}

/// Puts one chunk's video packets on the output's clock (docs/rendering.md, "Assembly"):
/// later by the chunk's first output frame, and a chunk too short for x264 to reach its
/// reorder delay (under 3 frames with B-pyramids: its decode times equal its presentation
/// times) decoding earlier by the delay it lacks. Every chunk then decodes the stream's
/// `video_delay` frames (from the SPS all chunks share) ahead of its pictures, so decode
/// times rise across every join; without this a 2-frame chunk before a longer one gave two
/// packets the same decode time, which the muxer refuses.
struct ChunkClock {
    private let offset: Int64
    private let delay: Int64
    private let timeBase: AVRational
    /// Added to every decode time of the chunk, fixed by its first packet.
    private var decodeShift: Int64?

    init(firstFrame: Int64, frameTimeBase: AVRational, reorderDelay: Int32, on timeBase: AVRational) {
        offset = av_rescale_q(firstFrame, frameTimeBase, timeBase)
        delay = av_rescale_q(Int64(max(0, reorderDelay)), frameTimeBase, timeBase)
        self.timeBase = timeBase
    }

    /// Moves `packet` from the chunk's time base onto the output's.
    mutating func place(_ packet: Packet, from chunkTimeBase: AVRational) {
        let p = packet.pointer
        av_packet_rescale_ts(p, chunkTimeBase, timeBase)
        let none = CFFmpeg_AV_NOPTS_VALUE()
        if decodeShift == nil {
            // The first packet in decode order is the chunk's keyframe, its first picture.
            decodeShift = p.pointee.pts != none && p.pointee.dts != none ? min(0, p.pointee.pts - delay - p.pointee.dts) : 0
        }
        if p.pointee.pts != none { p.pointee.pts += offset }
        if p.pointee.dts != none { p.pointee.dts += offset + (decodeShift ?? 0) }
    }
}

/// The AAC packets of every piece of the audio track in order (docs/rendering.md, "Audio
/// in pieces"): the first piece's as written (its priming first), each later piece's
/// re-timed to follow the packet before it. Every piece must carry the first's decoder
/// configuration.
final class ConcatenatedAudio {
    private let files: ArrivingChunks
    /// Where the next packet starts, on `timeBase`.
    private var following: Int64?
    var first: ChunkReader { files.first }
    var opened: Int { files.opened }
    var timeBase: AVRational { first.stream.pointee.time_base }

    /// Opens the first piece, which must be there.
    init(pieces: [String]) throws {
        files = try ArrivingChunks(paths: pieces, type: AVMEDIA_TYPE_AUDIO) { index in
            "audio piece \(index) (\(pieces[index])) has another AAC configuration than piece 0; "
                + "pieces of one job must share encoder settings and engine version"
        }
    }

    func next(isReady: (String) -> Bool) throws -> ChunkStep {
        let (step, file) = try files.next(isReady: isReady)
        guard case .packet(let packet) = step else { return step }
        let p = packet.pointer
        if file > 0, let start = following {
            p.pointee.pts = start
            p.pointee.dts = start
        }
        following = p.pointee.pts + p.pointee.duration
        return step
    }
}

/// Packets of the one stream of a chunk file, in file order.
struct ChunkReader {
    let input: InputContainer
    let stream: UnsafeMutablePointer<AVStream>

    /// `parameters`: `.fromHeader` for a chunk whose packets alone are wanted (every chunk
    /// after the first: the output's stream parameters are the first chunk's), which saves
    /// decoding its first pictures to learn what its sample description already says.
    init(path: String, type: AVMediaType, parameters: InputContainer.StreamParameters = .probed) throws {
        input = try InputContainer(path: path, parameters: parameters)
        guard let s = input.bestStream(type) else { throw EngineError("\(path): chunk has no \(type == AVMEDIA_TYPE_VIDEO ? "video" : "audio") stream") }
        stream = s
    }

    var extradata: [UInt8] {
        guard let par = stream.pointee.codecpar, let data = par.pointee.extradata else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(par.pointee.extradata_size)))
    }

    func next() throws -> Packet? {
        let packet = try Packet()
        while true {
            let code = av_read_frame(input.context, packet.pointer)
            if code == AVError.eof { return nil }
            try avCheck(code, "av_read_frame(\(input.path))")
            if packet.pointer.pointee.stream_index == stream.pointee.index { return packet }
            av_packet_unref(packet.pointer)
        }
    }
}

extension OutputContainer {
    /// A stream that carries `source`'s packets unchanged (remux, no re-encode).
    func addStream(copying source: UnsafeMutablePointer<AVStream>) throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else { throw EngineError("avformat_new_stream: out of memory") }
        try avCheck(avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar), "avcodec_parameters_copy")
        // Let the muxer choose the tag, except HEVC's `hvc1` (the MP4 muxer's default is `hev1`).
        if source.pointee.codecpar.pointee.codec_id != AV_CODEC_ID_HEVC { stream.pointee.codecpar.pointee.codec_tag = 0 }
        stream.pointee.time_base = source.pointee.time_base
        return stream
    }
}
