import CFFmpeg

/// An open libavcodec decoder for one stream of an input. One thread for renders:
/// parallelism comes from shards, and a single-threaded decoder gives frames with no
/// extra delay. Pictures at a time (`ClipReader`) use frame threads on idle cores.
final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>

    init(stream: UnsafeMutablePointer<AVStream>, path: String, threads: Int = 1) throws {
        guard let par = stream.pointee.codecpar else { throw EngineError("\(path): stream has no parameters") }
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else {
            let name = avcodec_get_name(par.pointee.codec_id).map { String(cString: $0) } ?? "?"
            throw EngineError("\(path): no decoder for \(name)")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw EngineError("avcodec_alloc_context3: out of memory") }
        context = ctx
        try avCheck(avcodec_parameters_to_context(ctx, par), "avcodec_parameters_to_context")
        ctx.pointee.pkt_timebase = stream.pointee.time_base
        ctx.pointee.thread_count = Int32(max(1, threads))
        if threads > 1 { ctx.pointee.thread_type = FF_THREAD_FRAME }
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
    }

    /// `nil` packet = end of stream (drain).
    func send(_ packet: Packet?) throws {
        let code = avcodec_send_packet(context, packet?.pointer)
        if code == AVError.eof || code == AVError.again { return }
        try avCheck(code, "avcodec_send_packet")
    }

    /// The next decoded frame, or `nil` when the decoder needs input (or is drained).
    func receive(into frame: Frame) throws -> Bool {
        let code = avcodec_receive_frame(context, frame.pointer)
        if code == AVError.again || code == AVError.eof { return false }
        try avCheck(code, "avcodec_receive_frame")
        return true
    }

    func flush() { avcodec_flush_buffers(context) }
}
