import CFFmpeg

/// An open libavcodec encoder. `send(nil)` flushes; `receive` hands out packets until
/// the encoder wants more input.
final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>

    /// `configure` sets the context's fields before it is opened with `options`.
    init(codecName: String, options: [String: String] = [:],
         configure: (UnsafeMutablePointer<AVCodecContext>) -> Void) throws {
        LibavCPU.beginBaseline()
        defer { LibavCPU.endBaseline() }
        guard let codec = avcodec_find_encoder_by_name(codecName) else {
            throw EngineError("encoder '\(codecName)' is not available in this libavcodec")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw EngineError("avcodec_alloc_context3: out of memory") }
        context = ctx
        configure(ctx)
        var dict: OpaquePointer?
        for (key, value) in options { av_dict_set(&dict, key, value, 0) }
        defer { av_dict_free(&dict) }
        try avCheck(avcodec_open2(ctx, codec, &dict), "avcodec_open2(\(codecName))")
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&ctx)
    }

    func send(_ frame: Frame?) throws {
        try avCheck(avcodec_send_frame(context, frame?.pointer), "avcodec_send_frame")
    }

    /// Drains every packet the encoder has ready, calling `body` for each.
    func receivePackets(_ body: (Packet) throws -> Void) throws {
        let packet = try Packet()
        while true {
            let code = avcodec_receive_packet(context, packet.pointer)
            if code == AVError.again || code == AVError.eof { return }
            try avCheck(code, "avcodec_receive_packet")
            try body(packet)
            av_packet_unref(packet.pointer)
        }
    }
}
