import CFFmpeg

/// An owned `AVFrame`, freed in `deinit`.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws {
        guard let frame = av_frame_alloc() else { throw EngineError("av_frame_alloc: out of memory") }
        pointer = frame
    }

    /// A frame with its own buffers for `format` at `width`×`height`.
    convenience init(videoFormat format: AVPixelFormat, width: Int, height: Int) throws {
        try self.init()
        pointer.pointee.format = format.rawValue
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        try avCheck(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer")
    }

    /// A new picture whose whole buffers — row padding and the bytes past the last row
    /// included — are zero. libx264's SIMD input copy reads past the visible pixels and
    /// what it finds there reaches the last macroblock column, so every picture given to
    /// x264 lives in such a buffer, or the same pictures could encode to different bits.
    static func zeroed(videoFormat format: AVPixelFormat, width: Int, height: Int) throws -> Frame {
        let frame = try Frame(videoFormat: format, width: width, height: height)
        let f = frame.pointer.pointee
        for buffer in [f.buf.0, f.buf.1, f.buf.2, f.buf.3] {
            guard let buffer, let data = buffer.pointee.data else { continue }
            data.update(repeating: 0, count: Int(buffer.pointee.size))
        }
        return frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    /// Makes the buffers writable (copies them if an encoder still holds a reference).
    func makeWritable() throws {
        try avCheck(av_frame_make_writable(pointer), "av_frame_make_writable")
    }

    /// The frame's time in its stream: libavcodec's best guess, else its pts; nil with neither.
    var bestEffortTimestamp: Int64? {
        let f = pointer.pointee
        if f.best_effort_timestamp != CFFmpeg_AV_NOPTS_VALUE() { return f.best_effort_timestamp }
        return f.pts == CFFmpeg_AV_NOPTS_VALUE() ? nil : f.pts
    }

    /// The planes of an 8-bit Y′CbCr 4:2:0 frame.
    func ycbcrPlanes() throws -> YCbCrPlanes {
        let f = pointer.pointee
        guard let y = f.data.0, let cb = f.data.1, let cr = f.data.2, f.linesize.1 == f.linesize.2 else {
            throw EngineError("frame has no data")
        }
        return YCbCrPlanes(y: y, yStride: Int(f.linesize.0), cb: cb, cr: cr, chromaStride: Int(f.linesize.1))
    }
}

/// An owned `AVPacket`, freed in `deinit`.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws {
        guard let packet = av_packet_alloc() else { throw EngineError("av_packet_alloc: out of memory") }
        pointer = packet
    }

    /// A new reference to the same data and properties (no copy of the payload).
    func reference() throws -> Packet {
        let copy = try Packet()
        try avCheck(av_packet_ref(copy.pointer, pointer), "av_packet_ref")
        return copy
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }
}
