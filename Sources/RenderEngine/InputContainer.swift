import CFFmpeg

/// An open input file (libavformat demuxer). Closed in `deinit`.
final class InputContainer {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String

    init(path: String) throws {
        LibavCPU.pinBaseline()
        self.path = path
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        let code = avformat_open_input(&ctx, path, nil, nil)
        guard code >= 0, let opened = ctx else {
            throw EngineError("\(path): not readable as media (\(AVError(code: code, function: "avformat_open_input").message))")
        }
        context = opened
        let info = avformat_find_stream_info(opened, nil)
        if info < 0 {
            var owned: UnsafeMutablePointer<AVFormatContext>? = opened
            avformat_close_input(&owned)
            throw EngineError("\(path): no stream information (\(AVError(code: info, function: "avformat_find_stream_info").message))")
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

    var formatName: String {
        context.pointee.iformat.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? ""
    }
}
