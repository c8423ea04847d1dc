import CFFmpeg
import Foundation
import SessionKit

/// An MP4 written while its chunks arrive (docs/rendering.md, "Assembly"): each `advance`
/// writes every packet the chunks present in output order allow, and `finish` writes only
/// the index, into the space reserved for it before the media data, so the file is
/// faststart without moving a byte. Written under a temporary name and renamed when
/// finished; `abandon` removes it. A live preview may ride along (`preview`): it is fed
/// every packet as the assembly reads it, so no chunk is read twice. Used from one thread
/// at a time.
public final class Assembly {
    /// The live preview fed from this assembly's reads (docs/rendering.md, "Live preview"):
    /// dropped, with its error in `previewFailure`, the moment it fails; the file goes on.
    public var preview: LivePreview?
    public private(set) var previewFailure: (any Error)?

    private func feedPreview(_ body: (LivePreview) throws -> Void) {
        guard let preview else { return }
        do {
            try body(preview)
        } catch {
            previewFailure = error
            self.preview = nil
        }
    }

    private let assembler: Assembler
    /// The file's video chunks in output order (a preview riding along cuts its segments at them).
    let chunks: [Assembler.VideoChunk]
    private let audioPieces: [String]
    private let reservedIndex: Int64
    private let temporary: TemporaryOutput
    /// Set when the first video chunk (and audio piece) are there: the streams are copied from them.
    private var writer: Writer?

    private final class Writer {
        let output: OutputContainer
        let video: ConcatenatedVideo
        let audio: ConcatenatedAudio?
        let videoStream: UnsafeMutablePointer<AVStream>
        let audioStream: UnsafeMutablePointer<AVStream>?
        /// The next packet of each stream, read and not yet written: the video's one, the
        /// audio's in order (read ahead to the end of the video read, for a preview's segment).
        var nextVideo: Packet?
        var audioQueue: [Packet] = []
        var nextAudio: Packet? { audioQueue.first }
        var videoEnded = false
        var audioEnded: Bool

        init(output: OutputContainer, video: ConcatenatedVideo, audio: ConcatenatedAudio?) throws {
            self.output = output
            self.video = video
            self.audio = audio
            videoStream = try output.addStream(copying: video.first.stream)
            audioStream = try audio.map { try output.addStream(copying: $0.first.stream) }
            audioEnded = audio == nil
        }
    }

    /// `audioSamples`: the audio track's length (0 without audio), for the index's room.
    public init(_ assembler: Assembler, video chunks: [Assembler.VideoChunk], audio: [String], audioSamples: Int64, to path: String) throws {
        guard !chunks.isEmpty else { throw EngineError("nothing to assemble: no video chunks") }
        self.assembler = assembler
        self.chunks = chunks
        audioPieces = audio
        reservedIndex = Assembler.indexBound(videoFrames: chunks.reduce(0) { $0 + $1.frameCount }, audioSamples: audio.isEmpty ? 0 : audioSamples)
        temporary = TemporaryOutput(finalPath: path)
    }

    /// Writes what the chunks that are there allow (`isReady(path)`: that chunk is complete);
    /// returns whether every packet is written.
    public func advance(isReady: (String) -> Bool) throws -> Bool {
        LibavLog.quiet()
        guard let writer = try openedWriter(isReady: isReady) else { return false }
        // Merged by decode time, so the muxer's interleaving queue stays small.
        while true {
            if writer.nextVideo == nil, !writer.videoEnded {
                switch try writer.video.next(on: writer.videoStream.pointee.time_base, isReady: isReady) {
                case .packet(let packet):
                    writer.nextVideo = packet
                    let timeBase = writer.videoStream.pointee.time_base
                    if let chunk = writer.video.chunk { feedPreview { try $0.take(video: try packet.reference(), chunk: chunk, on: timeBase) } }
                case .end: writer.videoEnded = true
                case .waiting:
                    // The chunks read so far end at a chunk's end: their sound is read too,
                    // so a preview can close their segments while the next chunk is awaited.
                    try readAudioAhead(of: writer, isReady: isReady)
                    return false
                }
            }
            if writer.nextAudio == nil, !writer.audioEnded {
                guard try readAudio(of: writer, isReady: isReady) else { return false }
            }
            var takeVideo = writer.nextVideo != nil
            if let v = writer.nextVideo, let a = writer.nextAudio, let audio = writer.audio {
                takeVideo = av_compare_ts(v.pointer.pointee.dts, writer.videoStream.pointee.time_base,
                                          a.pointer.pointee.dts, audio.timeBase) <= 0
            }
            if takeVideo, let packet = writer.nextVideo {
                packet.pointer.pointee.stream_index = writer.videoStream.pointee.index
                try avCheck(av_interleaved_write_frame(writer.output.context, packet.pointer), "av_interleaved_write_frame(video)")
                writer.nextVideo = nil
                writtenPackets += 1
            } else if let packet = writer.nextAudio, let audio = writer.audio, let stream = writer.audioStream {
                av_packet_rescale_ts(packet.pointer, audio.timeBase, stream.pointee.time_base)
                packet.pointer.pointee.stream_index = stream.pointee.index
                try avCheck(av_interleaved_write_frame(writer.output.context, packet.pointer), "av_interleaved_write_frame(audio)")
                writer.audioQueue.removeFirst()
                writtenPackets += 1
            } else {
                return true
            }
        }
    }

    /// Reads the audio track's next packet into the queue (the preview gets it too); false
    /// while its piece is not there. At the track's end, marks it ended.
    private func readAudio(of writer: Writer, isReady: (String) -> Bool) throws -> Bool {
        guard let audio = writer.audio, !writer.audioEnded else { return true }
        switch try audio.next(isReady: isReady) {
        case .packet(let packet):
            writer.audioQueue.append(packet)
            feedPreview { try $0.take(audio: try packet.reference(), on: audio.timeBase) }
        case .end:
            writer.audioEnded = true
            feedPreview { try $0.audioEnded() }
        case .waiting:
            return false
        }
        return true
    }

    /// Reads the sound up to and past the end of the last chunk read (which ends a chunk:
    /// the video waits only between chunks), as far as its pieces are there.
    private func readAudioAhead(of writer: Writer, isReady: (String) -> Bool) throws {
        guard preview != nil, let audio = writer.audio, let chunk = writer.video.chunk else { return }
        let end = AudioPieces.sample(ofFrame: chunks[chunk].outputStartFrame + chunks[chunk].frameCount,
                                     frameDuration: assembler.frameDuration)
        let samples = AVRational(num: 1, den: Int32(AudioPieces.sampleRate))
        while !writer.audioEnded, writer.audioQueue.last.map({ av_rescale_q($0.pointer.pointee.pts, audio.timeBase, samples) < end }) ?? true {
            guard try readAudio(of: writer, isReady: isReady) else { return }
        }
    }

    /// Writes the index and puts the file in place. Every packet must be written.
    public func finish() throws {
        guard let writer, writer.videoEnded, writer.audioEnded, writer.nextVideo == nil, writer.nextAudio == nil else {
            throw EngineError("the assembly of \(temporary.finalPath) is not complete")
        }
        do {
            try writer.output.close()
        } catch {
            throw EngineError("\(temporary.finalPath): the index did not fit the \(reservedIndex) bytes reserved for it (\(error))")
        }
        try temporary.commit()
    }

    /// Packets written so far.
    public private(set) var writtenPackets = 0

    /// Chunk files opened so far, video and audio: each once, the preview's reads included
    /// (it reads none of its own).
    public var chunkFilesOpened: Int { (writer?.video.opened ?? 0) + (writer?.audio?.opened ?? 0) }

    /// Writes every chunk, all of them there, and finishes; on failure removes what was written.
    public func writeAll() throws {
        do {
            guard try advance(isReady: { _ in true }) else { throw EngineError("a chunk of \(temporary.finalPath) was not there") }
            try finish()
        } catch {
            abandon()
            throw error
        }
    }

    /// Removes what was written.
    public func abandon() {
        writer = nil
        temporary.discard()
    }

    private func openedWriter(isReady: (String) -> Bool) throws -> Writer? {
        if let writer { return writer }
        guard isReady(chunks[0].path), audioPieces.first.map(isReady) ?? true else { return nil }
        let output = try assembler.makeOutput(at: temporary.path)
        let video = try ConcatenatedVideo(chunks: chunks, frameTimeBase: try assembler.frameTimeBase)
        let audio = try audioPieces.isEmpty ? nil : ConcatenatedAudio(pieces: audioPieces)
        let opened = try Writer(output: output, video: video, audio: audio)
        feedPreview { try $0.open(video: video.first.stream, audio: audio?.first.stream) }
        // The index goes before the media data, in room kept for it: faststart without
        // moving the media data at the end.
        // The movie's clock counts both the audio's samples and the frames, so the edit lists
        // state each track's length exactly (libavformat's default, milliseconds, cut up to
        // 47 samples from the audio's end).
        try output.writeHeader(options: ["moov_size": String(reservedIndex), "movie_timescale": String(try assembler.movieTimescale)])
        writer = opened
        return opened
    }
}
