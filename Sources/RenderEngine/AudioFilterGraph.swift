import CFFmpeg
import Foundation

/// A libavfilter graph `abuffer → filters → abuffersink`, owned and freed here.
final class AudioFilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>

    /// `description` is a filter chain such as `atrim=start=1,aresample=48000`.
    init(decoder: UnsafeMutablePointer<AVCodecContext>, timeBase: AVRational, description: String) throws {
        LibavCPU.beginBaseline()
        defer { LibavCPU.endBaseline() }
        guard let g = avfilter_graph_alloc() else { throw EngineError("avfilter_graph_alloc: out of memory") }
        graph = g
        g.pointee.nb_threads = 1
        var layout = [CChar](repeating: 0, count: 128)
        av_channel_layout_describe(&decoder.pointee.ch_layout, &layout, layout.count)
        let formatName = av_get_sample_fmt_name(decoder.pointee.sample_fmt).map { String(cString: $0) } ?? "fltp"
        let arguments = "time_base=\(timeBase.num)/\(timeBase.den):sample_rate=\(decoder.pointee.sample_rate)"
            + ":sample_fmt=\(formatName):channel_layout=\(String(cString: layout))"
        var src: UnsafeMutablePointer<AVFilterContext>?
        var snk: UnsafeMutablePointer<AVFilterContext>?
        do {
            try avCheck(avfilter_graph_create_filter(&src, avfilter_get_by_name("abuffer"), "in", arguments, nil, g), "abuffer")
            try avCheck(avfilter_graph_create_filter(&snk, avfilter_get_by_name("abuffersink"), "out", nil, nil, g), "abuffersink")
            guard let src, let snk else { throw EngineError("audio filter graph: missing endpoints") }
            source = src
            sink = snk
            var outputs = avfilter_inout_alloc()
            var inputs = avfilter_inout_alloc()
            defer {
                avfilter_inout_free(&outputs)
                avfilter_inout_free(&inputs)
            }
            guard let o = outputs, let i = inputs else { throw EngineError("avfilter_inout_alloc: out of memory") }
            o.pointee.name = av_strdup("in")
            o.pointee.filter_ctx = src
            i.pointee.name = av_strdup("out")
            i.pointee.filter_ctx = snk
            try avCheck(avfilter_graph_parse_ptr(g, description, &inputs, &outputs, nil), "avfilter_graph_parse(\(description))")
            try avCheck(avfilter_graph_config(g, nil), "avfilter_graph_config")
        } catch {
            avfilter_graph_free(&graph)
            throw error
        }
    }

    deinit { avfilter_graph_free(&graph) }

    /// `nil` ends the stream.
    func push(_ frame: Frame?) throws {
        try avCheck(av_buffersrc_add_frame_flags(source, frame?.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)), "av_buffersrc_add_frame")
    }

    /// Takes every frame the graph has ready.
    func pull(_ body: (Frame) throws -> Void) throws {
        while true {
            let frame = try Frame()
            let code = av_buffersink_get_frame(sink, frame.pointer)
            if code == AVError.again || code == AVError.eof { return }
            try avCheck(code, "av_buffersink_get_frame")
            try body(frame)
        }
    }
}
