import CFFmpeg
import Foundation
import SessionKit

/// Reads what validation and the timeline need from a media file (docs/architecture.md): duration,
/// nominal frame rate, coded size and sample aspect, display matrix, audio, colour tags.
public enum MediaProbe {
    public static func probe(path: String) throws -> MediaInfo {
        if HEIFImage.isHEIF(path: path) { return try HEIFImage(path: path).mediaInfo() }
        return try probe(.file(path))
    }

    /// Probes a file or a source read by ranges (a URL's origin): only the header, the
    /// index and the first frame are read.
    public static func probe(_ media: MediaInput) throws -> MediaInfo {
        LibavLog.quiet()
        let path = media.name
        let input = try InputContainer(media)
        guard let stream = input.bestStream(AVMEDIA_TYPE_VIDEO), let par = stream.pointee.codecpar else {
            throw EngineError("\(path): no video stream")
        }
        let p = par.pointee
        guard p.width > 0, p.height > 0 else {
            throw EngineError("\(path): video stream has no picture size")
        }
        let codecName = avcodec_get_name(p.codec_id).map { String(cString: $0) } ?? "unknown"
        guard avcodec_find_decoder(p.codec_id) != nil else {
            // Refused here, at validation (exit 2 with the JSON path), not by a worker mid-job.
            throw EngineError("\(path): this system's libavcodec cannot decode its video (codec \(codecName), tag '\(fourCC(p.codec_tag))')")
        }
        let still = isStillImage(input: input, stream: stream)
        try checkComplete(input: input, stream: stream, path: path)

        let frameDuration = still ? nil : nominalFrameDuration(stream)
        let duration = still ? (frameDuration ?? Rational(1, 30)!) : try streamDuration(input: input, stream: stream, path: path)
        let sar = p.sample_aspect_ratio
        let sampleAspect = (sar.num > 0 && sar.den > 0) ? (Rational(Int64(sar.num), Int64(sar.den)) ?? .one) : .one

        return MediaInfo(
            duration: duration, frameDuration: frameDuration,
            codedWidth: Int(p.width), codedHeight: Int(p.height), sampleAspect: sampleAspect,
            displayTransform: displayTransform(stream), hasAudio: input.bestStream(AVMEDIA_TYPE_AUDIO) != nil,
            isStillImage: still, codec: codecName,
            colorPrimaries: name(av_color_primaries_name(p.color_primaries), unless: p.color_primaries == AVCOL_PRI_UNSPECIFIED),
            colorTransfer: name(av_color_transfer_name(p.color_trc), unless: p.color_trc == AVCOL_TRC_UNSPECIFIED),
            colorMatrix: name(av_color_space_name(p.color_space), unless: p.color_space == AVCOL_SPC_UNSPECIFIED),
            colorRange: name(av_color_range_name(p.color_range), unless: p.color_range == AVCOL_RANGE_UNSPECIFIED),
            chromaLocation: name(av_chroma_location_name(p.chroma_location), unless: p.chroma_location == AVCHROMA_LOC_UNSPECIFIED),
            exif: still && p.codec_id == AV_CODEC_ID_MJPEG ? try exifOrientation(media) : nil,
            videoOrigin: still ? nil : try VideoSource(opened: input, rewind: false, threads: .firstFrame).originSeconds)
    }

    /// A JPEG's EXIF `Orientation`, read from the file's header segments (no decode).
    private static func exifOrientation(_ media: MediaInput) throws -> Int? {
        var header = [UInt8](repeating: 0, count: JPEGExif.headerLimit)
        let count: Int
        switch media {
        case .file(let path):
            guard let file = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? file.close() }   // read-only handle: nothing to lose on close
            header = [UInt8](try file.read(upToCount: JPEGExif.headerLimit) ?? Data())
            count = header.count
        case .ranges(let reader, _):
            count = try header.withUnsafeMutableBytes { try reader.read(at: 0, into: $0.baseAddress.unsafelyUnwrapped, count: $0.count) }
        }
        return JPEGExif.orientation(in: Array(header.prefix(count)))
    }

    /// A codec tag as its four characters (`avc1`, `hvc1`), printable ones only.
    private static func fourCC(_ tag: UInt32) -> String {
        String((0..<4).map { i -> Character in
            let byte = UInt8((tag >> (8 * UInt32(i))) & 0xFF)
            return (0x20...0x7E).contains(byte) ? Character(UnicodeScalar(byte)) : "?"
        })
    }

    private static func name(_ c: UnsafePointer<CChar>?, unless unspecified: Bool) -> String? {
        guard !unspecified, let c else { return nil }
        return String(cString: c)
    }

    private static func isStillImage(input: InputContainer, stream: UnsafeMutablePointer<AVStream>) -> Bool {
        let format = input.formatName
        return format.hasPrefix("image2") || format.hasSuffix("_pipe")
    }

    /// The stream's nominal rate (`r_frame_rate`, AVFoundation's `minFrameDuration`), else
    /// its average rate (docs/timeline.md): a variable-rate phone clip shot at 30 fps
    /// averages less in low light but is still a 30 fps clip. A nominal rate above 240 fps
    /// is a time base, not a rate, and is passed over.
    private static func nominalFrameDuration(_ stream: UnsafeMutablePointer<AVStream>) -> Rational? {
        let nominal = stream.pointee.r_frame_rate, average = stream.pointee.avg_frame_rate
        for rate in [nominal, average] where rate.num > 0 && rate.den > 0 && Double(rate.num) / Double(rate.den) <= 240 {
            if let r = Rational(Int64(rate.den), Int64(rate.num)) { return r }
        }
        return nil
    }

    /// The video stream's length on its own clock; the container's when the stream has none.
    private static func streamDuration(input: InputContainer, stream: UnsafeMutablePointer<AVStream>,
                                       path: String) throws -> Rational {
        let tb = stream.pointee.time_base
        if stream.pointee.duration > 0, tb.num > 0, tb.den > 0,
           let d = Rational(reducing: Int128(stream.pointee.duration) * Int128(tb.num), Int128(tb.den)) {
            return d
        }
        let container = input.context.pointee.duration
        if container > 0, let d = Rational(container, Int64(AV_TIME_BASE)) { return d }
        throw EngineError("\(path): duration unknown")
    }

    /// The display matrix (16.16 fixed point, row-vector convention like AVFoundation's)
    /// as a `preferredTransform`; ffprobe's `rotation=-90` is `(0, 1, -1, 0, h, 0)`.
    private static func displayTransform(_ stream: UnsafeMutablePointer<AVStream>) -> SessionTransform? {
        var size: Int = 0
        guard let raw = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return nil }
        return raw.withMemoryRebound(to: Int32.self, capacity: 9) { m in
            func fixed(_ i: Int) -> Double { Double(m[i]) / 65536 }
            return SessionTransform(a: fixed(0), b: fixed(1), c: fixed(3), d: fixed(4), tx: fixed(6), ty: fixed(7))
        }
    }

    /// A file cut short still opens when its index sits at the front; refuse it when the
    /// index points past the end of the file.
    private static func checkComplete(input: InputContainer, stream: UnsafeMutablePointer<AVStream>, path: String) throws {
        guard let pb = input.context.pointee.pb else { return }
        let fileSize = avio_size(pb)
        let count = avformat_index_get_entries_count(stream)
        guard fileSize > 0, count > 0, let last = avformat_index_get_entry(stream, count - 1) else { return }
        let end = last.pointee.pos + Int64(last.pointee.size)
        if last.pointee.pos >= 0, end > fileSize {
            throw EngineError("\(path): truncated: the index points to byte \(end) but the file has \(fileSize) bytes")
        }
    }
}
