import CFFmpeg

/// A file being written by a libavformat muxer. `close()` writes the trailer and must be
/// called for a valid file; `deinit` only frees what is left.
final class OutputContainer {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    private var headerWritten = false
    private var closed = false

    init(path: String, format: String? = nil) throws {
        self.path = path
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try avCheck(avformat_alloc_output_context2(&ctx, nil, format, path), "avformat_alloc_output_context2(\(path))")
        guard let ctx else { throw EngineError("\(path): no muxer") }
        context = ctx
        if ctx.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            try avCheck(avio_open(&ctx.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open(\(path))")
        }
    }

    deinit {
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0, context.pointee.pb != nil {
            avio_closep(&context.pointee.pb)
        }
        avformat_free_context(context)
    }

    /// Whether the muxer wants codec headers out of band (MP4's `avcC`).
    var needsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    func addStream(from encoder: Encoder) throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else { throw EngineError("avformat_new_stream: out of memory") }
        try avCheck(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context), "avcodec_parameters_from_context")
        stream.pointee.time_base = encoder.context.pointee.time_base
        return stream
    }

    func writeHeader(options: [String: String] = [:]) throws {
        var dict: OpaquePointer?
        for (key, value) in options { av_dict_set(&dict, key, value, 0) }
        defer { av_dict_free(&dict) }
        try avCheck(avformat_write_header(context, &dict), "avformat_write_header(\(path))")
        headerWritten = true
    }

    /// Writes a packet whose timestamps are in `from`'s time base into `stream`.
    func write(_ packet: Packet, stream: UnsafeMutablePointer<AVStream>, from timeBase: AVRational) throws {
        packet.pointer.pointee.stream_index = stream.pointee.index
        av_packet_rescale_ts(packet.pointer, timeBase, stream.pointee.time_base)
        try avCheck(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame(\(path))")
    }

    /// Writes the trailer and closes the file.
    func close() throws {
        guard !closed else { return }
        closed = true
        if headerWritten { try avCheck(av_write_trailer(context), "av_write_trailer(\(path))") }
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            try avCheck(avio_closep(&context.pointee.pb), "avio_closep(\(path))")
        }
    }
}
