import CFFmpeg
import CHeif

/// A HEIC sample photo, as an iPhone stores one: HEVC 4:2:0 in a HEIF file, the rotation
/// in `irot`/`imir` boxes (docs/geometry.md, "HEIC photos").
extension SampleMedia {
    static func isHEIFPath(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".heic") || lower.hasSuffix(".heif")
    }

    /// Frame 0 of the pattern; `rotation` is stored as the picture's clockwise turn on screen.
    func writeHEIF(at path: String) throws {
        let picture = try Frame.zeroed(videoFormat: AV_PIX_FMT_YUVJ420P, width: width, height: height)
        draw(frame: 0, into: picture)

        guard let context = heif_context_alloc() else { throw EngineError("heif_context_alloc: out of memory") }
        defer { heif_context_free(context) }
        var created: OpaquePointer?
        try heifCheck(heif_image_create(Int32(width), Int32(height), heif_colorspace_YCbCr, heif_chroma_420, &created), "heif_image_create")
        guard let image = created else { throw EngineError("heif_image_create: no image") }
        defer { heif_image_release(image) }
        let p = picture.pointer.pointee
        let planes = [(heif_channel_Y, width, height, p.data.0, p.linesize.0),
                      (heif_channel_Cb, width / 2, height / 2, p.data.1, p.linesize.1),
                      (heif_channel_Cr, width / 2, height / 2, p.data.2, p.linesize.2)]
        for (channel, w, h, source, sourceStride) in planes {
            try heifCheck(heif_image_add_plane(image, channel, Int32(w), Int32(h), 8), "heif_image_add_plane")
            var stride: Int32 = 0
            guard let destination = heif_image_get_plane(image, channel, &stride), let source else {
                throw EngineError("heif_image_get_plane: no plane")
            }
            for y in 0..<h { (destination + y * Int(stride)).update(from: source + y * Int(sourceStride), count: w) }
        }
        // Full-range BT.601, as JPEG and iPhone HEIC photos.
        if let nclx = heif_nclx_color_profile_alloc() {
            defer { heif_nclx_color_profile_free(nclx) }
            nclx.pointee.matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6
            nclx.pointee.full_range_flag = 1
            try heifCheck(heif_image_set_nclx_color_profile(image, nclx), "heif_image_set_nclx_color_profile")
        }

        var found: OpaquePointer?
        try heifCheck(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &found), "heif_context_get_encoder_for_format")
        guard let encoder = found else { throw EngineError("libheif has no HEVC encoder") }
        defer { heif_encoder_release(encoder) }
        try heifCheck(heif_encoder_set_lossy_quality(encoder, 90), "heif_encoder_set_lossy_quality")
        guard let options = heif_encoding_options_alloc() else { throw EngineError("heif_encoding_options_alloc: out of memory") }
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = switch rotation {
        case 90: heif_orientation_rotate_90_cw
        case 180: heif_orientation_rotate_180
        case 270: heif_orientation_rotate_270_cw
        default: heif_orientation_normal
        }
        try heifCheck(heif_context_encode_image(context, image, encoder, options, nil), "heif_context_encode_image")
        try heifCheck(heif_context_write_to_file(context, path), "heif_context_write_to_file")
    }

    private func heifCheck(_ status: heif_error, _ function: String) throws {
        guard status.code == heif_error_Ok else {
            throw EngineError("\(function): \(HEIFImage.message(status))")
        }
    }
}
