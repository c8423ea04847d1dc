import CFFmpeg
import SessionKit

/// Where a track's samples go, in order: the AAC encoder, or a test's buffer.
protocol AudioSampleSink: AnyObject {
    func append(left: [Float], right: [Float]) throws
    func appendSilence(_ count: Int) throws
    func close() throws
}

/// One continuous AAC stream (48 kHz stereo) encoded from planar float blocks of any size;
/// of its packets (numbered from 0, the priming) only `keep` are written. A piece that
/// starts later than its encoder's first packet is written from time 0 (the Assembler
/// re-times every piece after the first, docs/rendering.md, "Audio in pieces").
final class AudioChunkWriter: AudioSampleSink {
    private let output: OutputContainer
    private let encoder: Encoder
    private let stream: UnsafeMutablePointer<AVStream>
    private let frameSize: Int
    private var left: [Float] = []
    private var right: [Float] = []
    private var samplesSent: Int64 = 0
    private let keep: Range<Int64>
    /// Subtracted from a kept packet's time stamp.
    private let shift: Int64

    init(path: String, sampleRate: Int, bitRate: Int, keep: Range<Int64> = 0..<Int64.max) throws {
        self.keep = keep
        output = try OutputContainer(path: path, format: "mp4")
        output.context.pointee.flags |= AVFMT_FLAG_BITEXACT
        let globalHeader = output.needsGlobalHeader
        encoder = try Encoder(codecName: "aac") { c in
            c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            c.pointee.sample_rate = Int32(sampleRate)
            av_channel_layout_default(&c.pointee.ch_layout, 2)
            c.pointee.bit_rate = Int64(bitRate)
            c.pointee.flags |= AV_CODEC_FLAG_QSCALE
            c.pointee.global_quality = Int32((AACQuality.quality(forBitRate: bitRate) * Double(FF_QP2LAMBDA)).rounded())
            c.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
            c.pointee.flags |= AV_CODEC_FLAG_BITEXACT
            if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }
        frameSize = max(1, Int(encoder.context.pointee.frame_size))
        guard frameSize == Int(AudioPieces.frameSize) else {
            throw EngineError("the AAC encoder's frame is \(frameSize) samples, not \(AudioPieces.frameSize)")
        }
        shift = keep.lowerBound == 0 ? 0 : (keep.lowerBound - 1) * Int64(frameSize)
        stream = try output.addStream(from: encoder)
        // The movie's clock is the samples': the edit list states the piece's length
        // exactly, so its last packet reads back whole (milliseconds cut it short).
        try output.writeHeader(options: ["movie_timescale": String(sampleRate)])
    }

    func append(left l: [Float], right r: [Float]) throws {
        left.append(contentsOf: l)
        right.append(contentsOf: r)
        try encodeFullFrames()
    }

    func appendSilence(_ count: Int) throws {
        try append(left: [Float](repeating: 0, count: count), right: [Float](repeating: 0, count: count))
    }

    func close() throws {
        if !left.isEmpty { try encode(count: left.count) }
        try encoder.send(nil)
        try drain()
        try output.close()
    }

    private func encodeFullFrames() throws {
        while left.count >= frameSize { try encode(count: frameSize) }
    }

    private func encode(count: Int) throws {
        let frame = try Frame()
        let f = frame.pointer
        f.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        f.pointee.sample_rate = encoder.context.pointee.sample_rate
        f.pointee.nb_samples = Int32(count)
        av_channel_layout_default(&f.pointee.ch_layout, 2)
        try avCheck(av_frame_get_buffer(f, 0), "av_frame_get_buffer(audio)")
        for (channel, samples) in [left, right].enumerated() {
            guard let data = f.pointee.extended_data[channel] else { continue }
            data.withMemoryRebound(to: Float.self, capacity: count) { dst in
                samples.withUnsafeBufferPointer { src in dst.update(from: src.baseAddress!, count: count) }
            }
        }
        left.removeFirst(count)
        right.removeFirst(count)
        f.pointee.pts = samplesSent
        samplesSent += Int64(count)
        try encoder.send(frame)
        try drain()
    }

    private func drain() throws {
        try encoder.receivePackets { packet in
            // Packet m is stamped (m − 1) · 1024: the encoder's priming comes first.
            let p = packet.pointer
            guard keep.contains(p.pointee.pts / Int64(frameSize) + 1) else { return }
            p.pointee.pts -= shift
            p.pointee.dts -= shift
            try output.write(packet, stream: stream, from: encoder.context.pointee.time_base)
        }
    }
}
