import CFFmpeg
import Foundation

/// Synthetic test media written with libavcodec/libavformat (`reel sample`): H.264 video
/// with a known picture per frame and, optionally, a sine tone in AAC; or one picture as a
/// JPEG, or as a HEIC photo through libheif (`SampleMedia+HEIF.swift`).
public struct SampleMedia: Sendable {
    public enum Pattern: String, Sendable, CaseIterable {
        /// Diagonal bands and a box that move every frame.
        case moving
        /// One flat colour per frame that encodes the frame's index (see `frameIndexColor`).
        case frameIndex = "frame-index"
        /// Four flat quadrants: red top-left, green top-right, blue bottom-left, white bottom-right.
        case quadrants
        /// Smooth colour waves that drift every frame: no hard edges, for colour-accuracy tests.
        case gradient
    }

    public var duration: Double = 3
    public var width: Int = 640
    public var height: Int = 360
    public var framesPerSecond: Int = 30
    /// Clockwise rotation on screen stored as a display matrix (90: a phone's portrait clip).
    public var rotation: Int = 0
    public var audio: Bool = true
    public var toneFrequency: Double = 440
    public var pattern: Pattern = .moving

    public init() {}

    public var frameCount: Int { max(1, Int((duration * Double(framesPerSecond)).rounded())) }

    /// Y, U, V of flat frame `i` in the frame-index pattern: Y steps by 18 with `i % 10`,
    /// U by 16 with `(i / 10) % 8`, V by 16 with `(i / 80) % 8` — 640 distinct frames,
    /// steps wide enough to survive compression.
    public static func frameIndexColor(_ i: Int) -> (y: UInt8, u: UInt8, v: UInt8) {
        (UInt8(40 + (i % 10) * 18), UInt8(64 + ((i / 10) % 8) * 16), UInt8(64 + ((i / 80) % 8) * 16))
    }

    /// Writes the media to `path` (through a temporary file renamed into place).
    public func write(to path: String) throws {
        guard width >= 16, height >= 16, width % 2 == 0, height % 2 == 0, width <= 7680, height <= 4320 else {
            throw EngineError("sample size \(width)x\(height): use even numbers from 16x16 to 7680x4320")
        }
        guard duration > 0, duration <= 3600, (1...240).contains(framesPerSecond) else {
            throw EngineError("sample duration \(duration) s at \(framesPerSecond) fps: use 0 < duration ≤ 3600 and 1 … 240 fps")
        }
        guard [0, 90, 180, 270].contains(rotation) else { throw EngineError("rotation \(rotation): use 0, 90, 180 or 270") }
        LibavLog.quiet()
        try TemporaryOutput.write(to: path) { temporary in
            if Self.isHEIFPath(path) {
                try writeHEIF(at: temporary)
            } else if Self.isStillImagePath(path) {
                try writeStill(at: temporary)
            } else {
                try writeFile(at: temporary, format: formatName(for: path))
            }
        }
    }

    static func isStillImagePath(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg")
    }

    /// One frame of the pattern as a JPEG (full-range YUV, as cameras write them).
    private func writeStill(at path: String) throws {
        if rotation != 0 {
            // JPEG has no display matrix in libavformat's muxer; orientation comes from the session.
            throw EngineError("--rotate is not supported for JPEG samples; set preferredTransform in the session")
        }
        let output = try OutputContainer(path: path, format: "image2")
        output.context.pointee.flags |= AVFMT_FLAG_BITEXACT
        let encoder = try Encoder(codecName: "mjpeg", options: ["q:v": "2"]) { c in
            c.pointee.width = Int32(width)
            c.pointee.height = Int32(height)
            c.pointee.pix_fmt = AV_PIX_FMT_YUVJ420P
            c.pointee.time_base = AVRational(num: 1, den: 1)
            c.pointee.color_range = AVCOL_RANGE_JPEG
            c.pointee.flags |= AV_CODEC_FLAG_BITEXACT
        }
        let stream = try output.addStream(from: encoder)
        try output.writeHeader(options: ["update": "1"])
        let picture = try Frame.zeroed(videoFormat: AV_PIX_FMT_YUVJ420P, width: width, height: height)
        draw(frame: 0, into: picture)
        picture.pointer.pointee.pts = 0
        try encoder.send(picture)
        try encoder.send(nil)
        try encoder.receivePackets { try output.write($0, stream: stream, from: encoder.context.pointee.time_base) }
        try output.close()
    }

    private func formatName(for path: String) -> String? {
        path.lowercased().hasSuffix(".mov") ? "mov" : "mp4"
    }

    private func writeFile(at path: String, format: String?) throws {
        let output = try OutputContainer(path: path, format: format)
        output.context.pointee.flags |= AVFMT_FLAG_BITEXACT
        let globalHeader = output.needsGlobalHeader
        let fps = Int32(framesPerSecond)
        let video = try Encoder(codecName: "libx264",
                                options: ["preset": "veryfast", "crf": "18", "threads": "1",
                                          "x264-params": "deterministic=1:cpu-independent=1"]) { c in
            c.pointee.width = Int32(width)
            c.pointee.height = Int32(height)
            c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            c.pointee.time_base = AVRational(num: 1, den: fps)
            c.pointee.framerate = AVRational(num: fps, den: 1)
            c.pointee.gop_size = 2 * fps
            c.pointee.color_range = AVCOL_RANGE_MPEG
            c.pointee.colorspace = AVCOL_SPC_BT709
            c.pointee.color_primaries = AVCOL_PRI_BT709
            c.pointee.color_trc = AVCOL_TRC_BT709
            if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }
        let videoStream = try output.addStream(from: video)
        if rotation != 0 {
            guard let side = av_stream_new_side_data(videoStream, AV_PKT_DATA_DISPLAYMATRIX, 36) else {
                throw EngineError("av_stream_new_side_data: out of memory")
            }
            // Stored so that ffprobe reports rotation=-90 for 90° clockwise, as on a phone.
            side.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_set($0, Double(rotation)) }
        }

        var audioEncoder: Encoder?
        var audioStream: UnsafeMutablePointer<AVStream>?
        if audio {
            let encoder = try Encoder(codecName: "aac") { c in
                c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
                c.pointee.sample_rate = 48000
                av_channel_layout_default(&c.pointee.ch_layout, 2)
                c.pointee.bit_rate = 128_000
                c.pointee.time_base = AVRational(num: 1, den: 48000)
                c.pointee.flags |= AV_CODEC_FLAG_BITEXACT
                if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            }
            audioStream = try output.addStream(from: encoder)
            audioEncoder = encoder
        }
        try output.writeHeader()

        let frames = frameCount
        let totalSamples = Int((duration * 48000).rounded())
        var picture = try Frame.zeroed(videoFormat: AV_PIX_FMT_YUV420P, width: width, height: height)
        var nextFrame = 0
        var nextSample = 0
        var videoDone = false
        var audioDone = audioEncoder == nil

        // Interleave by presentation time so the muxer never buffers much.
        while !videoDone || !audioDone {
            let videoTime = Double(nextFrame) / Double(framesPerSecond)
            let audioTime = Double(nextSample) / 48000
            if !videoDone && (audioDone || videoTime <= audioTime) {
                if nextFrame < frames {
                    if av_frame_is_writable(picture.pointer) == 0 {
                        picture = try Frame.zeroed(videoFormat: AV_PIX_FMT_YUV420P, width: width, height: height)
                    }
                    draw(frame: nextFrame, into: picture)
                    picture.pointer.pointee.pts = Int64(nextFrame)
                    try video.send(picture)
                    nextFrame += 1
                } else {
                    try video.send(nil)
                    videoDone = true
                }
                try video.receivePackets { packet in
                    // One frame each, so the last frame counts in the stream's duration.
                    packet.pointer.pointee.duration = 1
                    try output.write(packet, stream: videoStream, from: video.context.pointee.time_base)
                }
            } else if let encoder = audioEncoder, let stream = audioStream {
                if nextSample < totalSamples {
                    let count = min(Int(encoder.context.pointee.frame_size), totalSamples - nextSample)
                    let frame = try toneFrame(start: nextSample, count: count)
                    try encoder.send(frame)
                    nextSample += count
                } else {
                    try encoder.send(nil)
                    audioDone = true
                }
                try encoder.receivePackets { try output.write($0, stream: stream, from: encoder.context.pointee.time_base) }
            }
        }
        try output.close()
    }

    private func toneFrame(start: Int, count: Int) throws -> Frame {
        let frame = try Frame()
        let f = frame.pointer
        f.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        f.pointee.sample_rate = 48000
        f.pointee.nb_samples = Int32(count)
        av_channel_layout_default(&f.pointee.ch_layout, 2)
        try avCheck(av_frame_get_buffer(f, 0), "av_frame_get_buffer(audio)")
        f.pointee.pts = Int64(start)
        for channel in 0..<2 {
            guard let data = f.pointee.extended_data[channel] else { continue }
            data.withMemoryRebound(to: Float.self, capacity: count) { samples in
                for i in 0..<count {
                    let t = Double(start + i) / 48000
                    samples[i] = Float(0.5 * sin(2 * Double.pi * toneFrequency * t))
                }
            }
        }
        return frame
    }

    func draw(frame index: Int, into picture: Frame) {
        let f = picture.pointer.pointee
        guard let yPlane = f.data.0, let uPlane = f.data.1, let vPlane = f.data.2 else { return }
        let (ys, us, vs) = (Int(f.linesize.0), Int(f.linesize.1), Int(f.linesize.2))
        let (cw, ch) = (width / 2, height / 2)
        switch pattern {
        case .frameIndex:
            let color = Self.frameIndexColor(index)
            for y in 0..<height { (yPlane + y * ys).update(repeating: color.y, count: width) }
            for y in 0..<ch {
                (uPlane + y * us).update(repeating: color.u, count: cw)
                (vPlane + y * vs).update(repeating: color.v, count: cw)
            }
        case .quadrants:
            // (Y, U, V) of red, green, blue and white in BT.709 limited range.
            let colors: [(UInt8, UInt8, UInt8)] = [(63, 102, 240), (173, 42, 26), (32, 240, 118), (235, 128, 128)]
            for y in 0..<height {
                for x in 0..<width { (yPlane + y * ys + x).pointee = colors[quadrant(x, y, width, height)].0 }
            }
            for y in 0..<ch {
                for x in 0..<cw {
                    let q = colors[quadrant(x, y, cw, ch)]
                    (uPlane + y * us + x).pointee = q.1
                    (vPlane + y * vs + x).pointee = q.2
                }
            }
        case .gradient:
            let phase = Double(index) / 30
            for y in 0..<height {
                let row = yPlane + y * ys
                for x in 0..<width {
                    row[x] = UInt8(126 + 100 * sin(2 * .pi * (Double(x) / Double(width) + phase)))
                }
            }
            for y in 0..<ch {
                for x in 0..<cw {
                    (uPlane + y * us + x).pointee = UInt8(128 + 100 * sin(2 * .pi * (Double(y) / Double(ch) - phase)))
                    (vPlane + y * vs + x).pointee = UInt8(128 + 100 * cos(2 * .pi * Double(x + y) / Double(cw + ch)))
                }
            }
        case .moving:
            let box = (x: (index * 8) % max(1, width - width / 8), y: height / 3, w: width / 8, h: height / 8)
            for y in 0..<height {
                let row = yPlane + y * ys
                for x in 0..<width {
                    let inBox = x >= box.x && x < box.x + box.w && y >= box.y && y < box.y + box.h
                    row[x] = inBox ? 235 : UInt8(16 + (x + y / 2 + 4 * index) % 220)
                }
            }
            for y in 0..<ch {
                for x in 0..<cw {
                    (uPlane + y * us + x).pointee = UInt8(96 + (x * 64 / cw))
                    (vPlane + y * vs + x).pointee = UInt8(96 + (y * 64 / ch))
                }
            }
        }
    }

    private func quadrant(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Int {
        (y < h / 2 ? 0 : 2) + (x < w / 2 ? 0 : 1)
    }
}
