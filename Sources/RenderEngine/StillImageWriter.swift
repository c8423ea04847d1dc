import CFFmpeg
import Foundation

/// Writes one packed-RGB picture as a JPEG (full-range BT.601 YCbCr 4:4:4, as JFIF wants)
/// or a PNG, bit-exact, with libavcodec's encoders; complete at `path` or not there at all.
struct StillImageWriter {
    let png: Bool
    /// JPEG quality 0…1.
    let quality: Double

    /// JPEG quality 0…1 onto libavcodec's MJPEG quantiser scale (1 best … 31 worst).
    static func qscale(quality: Double) -> Int32 {
        Int32(max(1, min(31, (1 + (1 - quality) * 40).rounded())))
    }

    func write(_ rgb: Frame, width: Int, height: Int, to path: String) throws {
        try TemporaryOutput.write(to: path) { try encode(rgb, width: width, height: height, to: $0) }
    }

    private func encode(_ rgb: Frame, width: Int, height: Int, to path: String) throws {
        let output = try OutputContainer(path: path, format: "image2")
        output.context.pointee.flags |= AVFMT_FLAG_BITEXACT
        let format = png ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_YUVJ444P
        let q = Self.qscale(quality: quality)
        let encoder = try Encoder(codecName: png ? "png" : "mjpeg") { c in
            c.pointee.width = Int32(width)
            c.pointee.height = Int32(height)
            c.pointee.pix_fmt = format
            c.pointee.time_base = AVRational(num: 1, den: 1)
            c.pointee.color_range = AVCOL_RANGE_JPEG
            c.pointee.flags |= AV_CODEC_FLAG_BITEXACT
            if !png {
                c.pointee.flags |= AV_CODEC_FLAG_QSCALE
                c.pointee.global_quality = q * FF_QP2LAMBDA
            }
        }
        var picture = rgb
        if !png {
            // JPEG is full-range YCbCr with BT.601 coefficients (JFIF).
            let key = Scaler.Key(sourceWidth: Int32(width), sourceHeight: Int32(height), sourceFormat: AV_PIX_FMT_RGB24.rawValue,
                                 width: Int32(width), height: Int32(height), format: format.rawValue,
                                 sourceMatrix: SWS_CS_ITU601, sourceFullRange: true)
            let scaler = try Scaler(key, outputMatrix: SWS_CS_ITU601, outputFullRange: true)
            let yuv = try Frame(videoFormat: format, width: width, height: height)
            let r = rgb.pointer.pointee, y = yuv.pointer.pointee
            try scaler.scale(source: [UnsafePointer(r.data.0), nil, nil, nil], sourceStrides: [r.linesize.0, 0, 0, 0],
                             destination: [y.data.0, y.data.1, y.data.2, nil], destinationStrides: [y.linesize.0, y.linesize.1, y.linesize.2, 0])
            picture = yuv
        }
        let stream = try output.addStream(from: encoder)
        try output.writeHeader(options: ["update": "1"])
        picture.pointer.pointee.pts = 0
        try encoder.send(picture)
        try encoder.send(nil)
        try encoder.receivePackets { try output.write($0, stream: stream, from: encoder.context.pointee.time_base) }
        try output.close()
    }
}
