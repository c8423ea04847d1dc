import CFFmpeg

/// An open input file (libavformat demuxer). Closed in `deinit`.
final class InputContainer {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    /// The I/O context of a source read by ranges; it outlives the format context.
    private let io: RangeIOContext?

    /// How an input learns its streams' parameters.
    enum StreamParameters {
        /// From packets read and decoded at the start (`avformat_find_stream_info`).
        case probed
        /// From the header when it describes every stream (MP4's sample descriptions do),
        /// else probed: for an input whose packets are all that is wanted of it.
        case fromHeader
    }

    convenience init(path: String, parameters: StreamParameters = .probed) throws {
        try self.init(.file(path), parameters: parameters)
    }

    /// `parameters` defaults to `.probed` for a file and `.fromHeader` for ranges.
    init(_ input: MediaInput, parameters: StreamParameters? = nil) throws {
        path = input.name
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        switch input {
        case .file: io = nil
        case .ranges(let source, _):
            let io = try RangeIOContext(source)
            guard let allocated = avformat_alloc_context() else { throw EngineError("cannot allocate a demuxer") }
            allocated.pointee.pb = io.context
            allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            ctx = allocated
            self.io = io
        }
        let code = avformat_open_input(&ctx, io == nil ? path : "", nil, nil)   // frees ctx on failure
        guard code >= 0, let opened = ctx else {
            if let cancelled = io?.readerError as? RenderCancelled { throw cancelled }
            if let origin = io?.readerError as? OriginError { throw origin }   // its kind decides retry or not
            let reason = io?.readerError.map { "\($0)" } ?? AVError(code: code, function: "avformat_open_input").message
            throw EngineError("\(path): not readable as media (\(reason))")
        }
        context = opened
        // A source read by ranges skips probing packets when the header already told every
        // stream's parameters (MP4's sample descriptions do): probing reads up to a second of
        // packets from the start of the file (about 1 MiB of a phone clip), which a shard far
        // into the clip and the audio task never need. What it found is known already: the
        // timeline comes from the coordinator's probe, the decoder reads the sample description.
        let defaultParameters: StreamParameters = if case .ranges = input { .fromHeader } else { .probed }
        if parameters ?? defaultParameters == .fromHeader, Self.headerDescribesEveryStream(opened) { return }
        let info = avformat_find_stream_info(opened, nil)
        if info < 0 {
            var owned: UnsafeMutablePointer<AVFormatContext>? = opened
            avformat_close_input(&owned)
            throw EngineError("\(path): no stream information (\(AVError(code: info, function: "avformat_find_stream_info").message))")
        }
    }

    /// Every audio stream has its rate and channels and every video stream its size.
    private static func headerDescribesEveryStream(_ context: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        (0..<Int(context.pointee.nb_streams)).allSatisfy { i in
            guard let p = context.pointee.streams[i]?.pointee.codecpar?.pointee else { return false }
            switch p.codec_type {
            case AVMEDIA_TYPE_AUDIO: return p.sample_rate > 0 && p.ch_layout.nb_channels > 0
            case AVMEDIA_TYPE_VIDEO: return p.width > 0 && p.height > 0
            default: return true
            }
        }
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&ctx)
    }

    var streams: [UnsafeMutablePointer<AVStream>] {
        (0..<Int(context.pointee.nb_streams)).compactMap { context.pointee.streams[$0] }
    }

    func bestStream(_ type: AVMediaType) -> UnsafeMutablePointer<AVStream>? {
        let index = av_find_best_stream(context, type, -1, -1, nil, 0)
        guard index >= 0, index < Int32(context.pointee.nb_streams) else { return nil }
        return context.pointee.streams[Int(index)]
    }

    /// What the range reader threw, if it did: a read that failed reaches the demuxer
    /// only as EIO, or as a packet cut short.
    var readerError: (any Error)? { io?.readerError }

    /// Whether the demuxer is one of the index-less streams (MPEG-TS, MPEG-PS: those that
    /// allow timestamp discontinuities) that are rewound by byte position rather than by
    /// time. Matroska, AVI and MP4 accept a byte seek too but land badly: they go by time.
    var rewindsByByte: Bool {
        guard let format = context.pointee.iformat else { return false }
        let flags = format.pointee.flags
        return flags & AVFMT_TS_DISCONT != 0 && flags & AVFMT_NO_BYTE_SEEK == 0 && flags & AVFMT_NOFILE == 0
    }

    var formatName: String {
        context.pointee.iformat.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? ""
    }
}
