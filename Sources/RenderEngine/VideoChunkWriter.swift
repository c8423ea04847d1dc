import CFFmpeg
import SessionKit

/// A video chunk being written: libx264 (or libx265 for `--codec hevc`) with the job's
/// fixed settings into a small MP4.
/// Every chunk is an independent closed-GOP stream that starts with an IDR frame, with
/// IDRs exactly every `gop` frames and one encoder thread, so its bytes depend only on
/// its pictures and the settings (docs/rendering.md). `cpu-independent=1` matters: without it the
/// same pictures gave different bits in about one render in ten, even on one machine.
final class VideoChunkWriter {
    private let output: OutputContainer
    private let encoder: Encoder
    private let stream: UnsafeMutablePointer<AVStream>
    private var framesSent: Int64 = 0

    init(path: String, width: Int, height: Int, frameDuration: Rational, settings: EncoderSettings) throws {
        guard let num = Int32(exactly: frameDuration.numerator), let den = Int32(exactly: frameDuration.denominator) else {
            throw EngineError("frame duration \(frameDuration) does not fit a time base")
        }
        let gop = settings.gopFrames(frameDuration: frameDuration)
        output = try OutputContainer(path: path, format: "mp4")
        output.context.pointee.flags |= AVFMT_FLAG_BITEXACT
        let globalHeader = output.needsGlobalHeader
        encoder = try Encoder(codecName: settings.videoCodec == .hevc ? "libx265" : "libx264",
                              options: Self.options(settings, gop: gop)) { c in
            c.pointee.width = Int32(width)
            c.pointee.height = Int32(height)
            c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            c.pointee.time_base = AVRational(num: num, den: den)
            c.pointee.framerate = AVRational(num: den, den: num)
            c.pointee.gop_size = Int32(clamping: gop)
            c.pointee.color_range = AVCOL_RANGE_MPEG
            c.pointee.colorspace = AVCOL_SPC_BT709
            c.pointee.color_primaries = AVCOL_PRI_BT709
            c.pointee.color_trc = AVCOL_TRC_BT709
            c.pointee.flags |= AV_CODEC_FLAG_BITEXACT
            if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }
        stream = try output.addStream(from: encoder)
        if settings.videoCodec == .hevc {
            // `hvc1`: parameter sets in the sample description only, as Apple's players want.
            stream.pointee.codecpar.pointee.codec_tag = Self.hvc1
        }
        try output.writeHeader()
    }

    static let hvc1 = UInt32(UInt8(ascii: "h")) | UInt32(UInt8(ascii: "v")) << 8 | UInt32(UInt8(ascii: "c")) << 16
        | UInt32(UInt8(ascii: "1")) << 24

    /// The encoder's options: IDRs exactly every `gop` frames, closed GOPs, no scene cuts,
    /// one thread, nothing that depends on timing or the machine's thread count.
    static func options(_ settings: EncoderSettings, gop: Int64) -> [String: String] {
        switch settings.videoCodec {
        case .h264:
            return [
                "preset": settings.preset, "crf": String(settings.crf), "profile": "high", "threads": "1", "forced-idr": "1",
                "x264-params": "keyint=\(gop):min-keyint=\(gop):scenecut=0:open-gop=0:threads=1:sliced-threads=0:sync-lookahead=0:lookahead-threads=1:deterministic=1:cpu-independent=1",
            ]
        case .hevc:
            // x265 has no cpu-independent switch; docs/rendering.md says what holds across machines.
            // SAO and weighted prediction read heap memory x265 never initialised (valgrind), so
            // a shard's bytes depended on the process's history: both are off. The lookahead and
            // B-frames are off too. The CTU size is fixed: libx265 keeps one per process, taken
            // from the first encoder it opens.
            return [
                "preset": settings.preset, "crf": String(settings.crf), "forced-idr": "1",
                "x265-params": "keyint=\(gop):min-keyint=\(gop):scenecut=0:open-gop=0:frame-threads=1:pools=none:wpp=0:lookahead-slices=0:info=0:log-level=error:profile=main:ctu=64:min-cu-size=8:rc-lookahead=0:b-adapt=0:bframes=0:cutree=0:sao=0:weightp=0",
            ]
        }
    }

    /// Encodes `picture` as the chunk's next frame; the first is forced to an IDR.
    func append(_ picture: Frame) throws {
        // x264 only ever sees pictures in zeroed buffers (see `Frame.zeroed`).
        let frame: Frame
        if let staging, av_frame_is_writable(staging.pointer) != 0 {
            frame = staging
        } else {
            let p = picture.pointer.pointee
            frame = try Frame.zeroed(videoFormat: AVPixelFormat(rawValue: p.format), width: Int(p.width), height: Int(p.height))
            staging = frame
        }
        try avCheck(av_frame_copy(frame.pointer, picture.pointer), "av_frame_copy")
        try append(zeroed: frame)
    }

    /// Encodes a picture that already lives in a zeroed buffer (`PictureQueue`), without
    /// copying it. libavcodec lets go of it once x264 has copied it; a picture it still
    /// holds is not reused (`PictureQueue.blank`).
    func append(zeroed frame: Frame) throws {
        frame.pointer.pointee.pts = framesSent
        frame.pointer.pointee.pict_type = framesSent == 0 ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        framesSent += 1
        try encoder.send(frame)
        try drain()
    }

    private var staging: Frame?

    /// Flushes the encoder and writes the trailer.
    func close() throws {
        try encoder.send(nil)
        try drain()
        try output.close()
    }

    private func drain() throws {
        try encoder.receivePackets { packet in
            packet.pointer.pointee.duration = 1
            try output.write(packet, stream: stream, from: encoder.context.pointee.time_base)
        }
    }
}
