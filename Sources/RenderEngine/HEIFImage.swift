import CFFmpeg
import CHeif
import Foundation
import SessionKit

/// A HEIC/HEIF photo read through libheif (docs/geometry.md, "HEIC photos"): FFmpeg 5.1
/// has no HEIF demuxer. The context and its primary image handle are freed in `deinit`.
/// libheif applies the file's rotation, mirror and clean-aperture boxes when it decodes,
/// so the picture comes out upright, as `UIImage` shows it.
final class HEIFImage {
    private let context: OpaquePointer
    private let handle: OpaquePointer
    let path: String

    /// Whether the file starts like a HEIF file (an `ftyp` box with a HEIF brand).
    static func isHEIF(path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }   // read-only handle: nothing to lose on close
        guard let head = try? file.read(upToCount: 64), head.count >= 12 else { return false }
        let bytes = [UInt8](head)
        let kind = heif_check_filetype(bytes, Int32(bytes.count))
        return kind == heif_filetype_yes_supported || kind == heif_filetype_yes_unsupported
    }

    init(path: String) throws {
        self.path = path
        guard let context = heif_context_alloc() else { throw EngineError("heif_context_alloc: out of memory") }
        do {
            try Self.check(heif_context_read_from_file(context, path, nil), path)
        } catch {
            heif_context_free(context)
            throw error
        }
        var handle: OpaquePointer?
        let status = heif_context_get_primary_image_handle(context, &handle)
        guard status.code == heif_error_Ok, let handle else {
            heif_context_free(context)
            throw Self.error(status, path)
        }
        self.context = context
        self.handle = handle
    }

    deinit {
        heif_image_handle_release(handle)
        heif_context_free(context)
    }

    /// The upright picture's size (after rotation and clean aperture).
    var width: Int { Int(heif_image_handle_get_width(handle)) }
    var height: Int { Int(heif_image_handle_get_height(handle)) }
    var hasAlpha: Bool { heif_image_handle_has_alpha_channel(handle) != 0 }

    /// What validation needs: an upright still, its EXIF orientation already applied.
    func mediaInfo() throws -> MediaInfo {
        guard width > 0, height > 0 else { throw EngineError("\(path): HEIF image has no picture size") }
        guard heif_have_decoder_for_format(heif_compression_HEVC) != 0 else {
            throw EngineError("\(path): this system's libheif cannot decode HEVC images")
        }
        return MediaInfo(duration: Rational(1, 30)!, frameDuration: nil, codedWidth: width, codedHeight: height,
                         sampleAspect: .one, displayTransform: nil, hasAudio: false, isStillImage: true, codec: "hevc")
    }

    /// The upright picture as an 8-bit RGB (RGBA with alpha) frame; deeper images are
    /// converted to 8 bits by libheif.
    func decode() throws -> Frame {
        guard let options = heif_decoding_options_alloc() else { throw EngineError("heif_decoding_options_alloc: out of memory") }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        let alpha = hasAlpha
        var image: OpaquePointer?
        let status = heif_decode_image(handle, &image, heif_colorspace_RGB,
                                       alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options)
        guard status.code == heif_error_Ok, let image else { throw Self.error(status, path) }
        defer { heif_image_release(image) }
        let w = Int(heif_image_get_width(image, heif_channel_interleaved))
        let h = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard w > 0, h > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw EngineError("\(path): HEIF image decoded without pixels")
        }
        let bytesPerPixel = alpha ? 4 : 3
        let frame = try Frame(videoFormat: alpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24, width: w, height: h)
        guard let destination = frame.pointer.pointee.data.0 else { throw EngineError("av_frame_get_buffer: no plane") }
        let destinationStride = Int(frame.pointer.pointee.linesize.0)
        for y in 0..<h {
            (destination + y * destinationStride).update(from: plane + y * Int(stride), count: w * bytesPerPixel)
        }
        frame.pointer.pointee.color_range = AVCOL_RANGE_JPEG
        return frame
    }

    private static func check(_ status: heif_error, _ path: String) throws {
        guard status.code == heif_error_Ok else { throw error(status, path) }
    }

    private static func error(_ status: heif_error, _ path: String) -> EngineError {
        EngineError("\(path): not a readable HEIF image (\(message(status)))")
    }

    /// libheif's text for a failed call, on one line (its messages may hold line breaks).
    static func message(_ status: heif_error) -> String {
        (status.message.map { String(cString: $0) } ?? "error \(status.code.rawValue)")
            .split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
