import CFFmpeg
import Foundation

/// An open libavcodec decoder for one stream of an input, on frame or slice threads. Both
/// are bit-exact: more threads change when frames come out, never their pixels. A shard
/// gets its share of the worker's cores (`ShardThreads`); pictures at a time
/// (`ClipReader`) the idle ones; a probe's first frame slice threads.
final class Decoder {
    /// How a decoder spreads over threads.
    enum Threads: Hashable, Sendable {
        /// Frame threads (slice threads for a decoder without them): a run of frames on `n`
        /// threads, but each holds a frame back, so the first comes out `n − 1` packets late.
        case frames(Int)
        /// Slice threads only (HEVC's wavefront rows, H.264's slices): no frame held back, so
        /// one frame alone decodes faster where its stream has rows or slices to share.
        case slices(Int)

        /// For the first frame of a file alone (a probe, a still): 4K HEVC's first frame
        /// took 196 ms on one thread and 130 ms on two (docs/rendering.md, "A shard's cores").
        static var firstFrame: Threads {
            .slices(min(ProcessInfo.processInfo.activeProcessorCount, ShardThreads.maximumDecodeThreads))
        }
    }

    let context: UnsafeMutablePointer<AVCodecContext>
    /// A video decoder from its first packet to its first frame (`LibavCPU`): it picks its
    /// routines then, with the processor's own flags.
    private let setsUpAtFirstPicture: Bool
    private var settingUp = false
    private var ready = false

    /// `setsUpAtFirstPicture`: a video decoder of a render, whose first frame no pin may
    /// overlap; only for a caller that pins nothing between its first packet and frame.
    init(stream: UnsafeMutablePointer<AVStream>, path: String, threads: Threads = .frames(1), setsUpAtFirstPicture: Bool = false) throws {
        self.setsUpAtFirstPicture = setsUpAtFirstPicture
        guard let par = stream.pointee.codecpar else { throw EngineError("\(path): stream has no parameters") }
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else {
            let name = avcodec_get_name(par.pointee.codec_id).map { String(cString: $0) } ?? "?"
            throw EngineError("\(path): no decoder for \(name)")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw EngineError("avcodec_alloc_context3: out of memory") }
        context = ctx
        try avCheck(avcodec_parameters_to_context(ctx, par), "avcodec_parameters_to_context")
        ctx.pointee.pkt_timebase = stream.pointee.time_base
        switch threads {
        case .frames(let count) where count > 1:
            ctx.pointee.thread_count = Int32(count)
            ctx.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        case .slices(let count) where count > 1:
            ctx.pointee.thread_count = Int32(count)
            ctx.pointee.thread_type = FF_THREAD_SLICE
        default:
            ctx.pointee.thread_count = 1
        }
        // Corrupt input is an error, not a concealed picture in someone's export.
        ctx.pointee.err_recognition |= AV_EF_EXPLODE | AV_EF_CRCCHECK | AV_EF_BITSTREAM
        // Audio decoders (float) and most video decoders set up their routines here; H.264
        // and HEVC at their first picture, with the processor's own (bit-exact) ones.
        LibavCPU.beginBaseline()
        defer { LibavCPU.endBaseline() }
        try avCheck(avcodec_open2(ctx, codec, nil), "avcodec_open2(decoder)")
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&ctx)
        if settingUp { LibavCPU.endDecoderSetUp() }
    }

    /// `nil` packet = end of stream (drain).
    func send(_ packet: Packet?) throws {
        if setsUpAtFirstPicture, !ready, !settingUp {
            LibavCPU.beginDecoderSetUp()
            settingUp = true
        }
        let code = avcodec_send_packet(context, packet?.pointer)
        if code == AVError.eof || code == AVError.again { return }
        try avCheck(code, "avcodec_send_packet")
    }

    /// The next decoded frame, or `nil` when the decoder needs input (or is drained).
    func receive(into frame: Frame) throws -> Bool {
        let code = avcodec_receive_frame(context, frame.pointer)
        if code == AVError.eof, settingUp {   // drained without a frame: nothing left to set up
            settingUp = false
            LibavCPU.endDecoderSetUp()
        }
        if code == AVError.again || code == AVError.eof { return false }
        try avCheck(code, "avcodec_receive_frame")
        if settingUp {
            settingUp = false
            LibavCPU.endDecoderSetUp()
        }
        ready = true
        return true
    }

    func flush() { avcodec_flush_buffers(context) }
}
