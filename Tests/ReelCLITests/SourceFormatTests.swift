import Foundation
import ReelTestSupport
import Testing

/// Sources as cameras write them (docs/rendering.md): 10-bit 4:2:2 ProRes, full-range
/// MJPEG with 4:3 pixels, VP9, AV1 and 10-bit 4:4:4 H.264 render with every frame and
/// the colours ffmpeg's own conversion of the same frames gives.
@Suite struct SourceFormatTests {
    struct Kind: Sendable, CustomStringConvertible {
        var name: String
        var file: String
        var encode: [String]
        /// The reference conversion of the source to the output's picture.
        var reference: String
        var frames: Int
        var description: String { name }
    }

    static let kinds = [
        Kind(name: "prores-422-10bit", file: "p.mov", encode: ["-c:v", "prores_ks", "-profile:v", "3", "-pix_fmt", "yuv422p10le"],
             reference: "scale=320:180:in_range=tv:out_range=tv:\(matrix),format=yuv420p", frames: 25),
        Kind(name: "mjpeg-full-range-sar-4-3", file: "m.avi",
             encode: ["-vf", "setsar=4/3", "-pix_fmt", "yuvj422p", "-c:v", "mjpeg", "-q:v", "2"],
             // 320 coded pixels of 4:3 are 426.67 square ones: rendered 426×180 (even).
             reference: "scale=426:180:in_range=pc:out_range=tv:\(matrix),setsar=1,format=yuv420p", frames: 25),
        Kind(name: "vp9", file: "v.webm", encode: ["-c:v", "libvpx-vp9", "-crf", "20", "-b:v", "0"],
             reference: "scale=320:180:\(matrix),format=yuv420p", frames: 25),
        Kind(name: "h264-444-10bit", file: "h.mp4", encode: ["-c:v", "libx264", "-pix_fmt", "yuv444p10le", "-crf", "12"],
             reference: "scale=320:180:\(matrix),format=yuv420p", frames: 25),
    ]

    /// The sources are untagged and up to 576 lines: read as BT.601, written as BT.709.
    static let matrix = "in_color_matrix=bt601:out_color_matrix=bt709"

    @Test(arguments: kinds)
    func aCameraFormatRendersEveryFrameInItsColours(_ kind: Kind) throws {
        let fx = try RenderFixture("format-\(kind.name)")
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=1"]
            + kind.encode + [fx.path(kind.file)])
        try #require(made.status == 0, "\(made.stderr)")
        try fx.session(#"{"video": {"videoSegments": [{"source": "\#(kind.file)"}]}}"#)
        let output = try fx.rendered(to: "out.mp4", ["--crf", "8", "--in-process"])
        let video = try #require(try FFprobe.streams(output).first { $0.codecType == "video" })
        #expect(video.frameCount == kind.frames)
        let run = try ProcessRunner.run(ffmpeg, ["-i", output, "-i", fx.path(kind.file), "-lavfi",
                                                 "[1:v]\(kind.reference)[ref];[0:v][ref]psnr", "-f", "null", "-"])
        let psnr = run.stderr.firstMatch(of: /average:([0-9.]+)/).flatMap { Double($0.1) }
        // The reference is libswscale's Y′CbCr → Y′CbCr conversion; the engine's own
        // (docs/rendering.md, "Colour conversion") interpolates chroma differently for luma.
        // A wrong matrix or range costs far more (BT.601 read as BT.709 on this clip: 24 dB).
        #expect((psnr ?? 0) >= 34, "PSNR \(psnr ?? 0) dB against \(kind.reference)")
    }
}
