import CFFmpeg
import SessionKit

/// An owned libswscale context with explicit colour matrices and ranges. Bit-exact flags
/// keep the output independent of the processor's SIMD paths (docs/rendering.md).
final class Scaler {
    private let context: OpaquePointer
    let key: Key

    struct Key: Hashable {
        var sourceWidth: Int32, sourceHeight: Int32, sourceFormat: Int32
        var width: Int32, height: Int32, format: Int32
        var sourceMatrix: Int32, sourceFullRange: Bool
        /// Where the source's chroma sits; nil: libswscale's default (centred).
        var sourceSiting: SourceColour.Siting? = nil
        /// Where the output's chroma is to sit, when it is subsampled Y′CbCr.
        var outputSiting: SourceColour.Siting? = nil
    }

    static let flags = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT | SWS_FULL_CHR_H_INP | SWS_FULL_CHR_H_INT

    /// Output is BT.709 limited range when it is YUV (docs/rendering.md) unless told otherwise (JPEG).
    init(_ key: Key, outputMatrix: Int32 = SWS_CS_ITU709, outputFullRange: Bool? = nil) throws {
        LibavCPU.beginBaseline()
        defer { LibavCPU.endBaseline() }
        guard let ctx = sws_alloc_context() else { throw EngineError("libswscale: out of memory") }
        let options: [(String, Int64)] = [
            ("srcw", Int64(key.sourceWidth)), ("srch", Int64(key.sourceHeight)), ("src_format", Int64(key.sourceFormat)),
            ("dstw", Int64(key.width)), ("dsth", Int64(key.height)), ("dst_format", Int64(key.format)),
            ("sws_flags", Int64(Self.flags)),
        ] + Self.positions(key.sourceSiting, format: key.sourceFormat, prefix: "src")
          + Self.positions(key.outputSiting, format: key.format, prefix: "dst")
        for (name, value) in options where av_opt_set_int(UnsafeMutableRawPointer(ctx), name, value, 0) < 0 {
            sws_freeContext(ctx)
            throw EngineError("libswscale refused option \(name)=\(value)")
        }
        guard sws_init_context(ctx, nil, nil) >= 0 else {
            sws_freeContext(ctx)
            throw EngineError("libswscale cannot convert \(key.sourceWidth)x\(key.sourceHeight) "
                + "\(Self.name(key.sourceFormat)) to \(key.width)x\(key.height) \(Self.name(key.format))")
        }
        context = ctx
        self.key = key
        let sourceTable = sws_getCoefficients(key.sourceMatrix)
        let outputTable = sws_getCoefficients(outputMatrix)
        let outputFull: Int32 = (outputFullRange ?? !Self.isYUV(key.format)) ? 1 : 0
        sws_setColorspaceDetails(ctx, sourceTable, key.sourceFullRange ? 1 : 0, outputTable, outputFull, 0, 1 << 16, 1 << 16)
    }

    deinit { sws_freeContext(context) }

    func scale(source: [UnsafePointer<UInt8>?], sourceStrides: [Int32],
               destination: [UnsafeMutablePointer<UInt8>?], destinationStrides: [Int32]) throws {
        let rows = sws_scale(context, source, sourceStrides, 0, key.sourceHeight, destination, destinationStrides)
        guard rows > 0 else { throw EngineError("sws_scale failed (\(rows))") }
    }

    /// libswscale's chroma positions (1/256 of a luma sample from the picture's edge) for
    /// `siting`, on the axes where `format` subsamples chroma.
    private static func positions(_ siting: SourceColour.Siting?, format: Int32, prefix: String) -> [(String, Int64)] {
        guard let siting, isYUV(format), let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)) else { return [] }
        var result: [(String, Int64)] = []
        if desc.pointee.log2_chroma_w > 0 { result.append(("\(prefix)_h_chr_pos", siting == .center ? 128 : 0)) }
        if desc.pointee.log2_chroma_h > 0 { result.append(("\(prefix)_v_chr_pos", siting == .topLeft ? 0 : 128)) }
        return result
    }

    static func isYUV(_ format: Int32) -> Bool {
        guard let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)) else { return false }
        return desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 && desc.pointee.nb_components >= 3
    }

    static func name(_ format: Int32) -> String {
        av_get_pix_fmt_name(AVPixelFormat(rawValue: format)).map { String(cString: $0) } ?? "format \(format)"
    }
}
