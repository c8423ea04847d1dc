import Foundation
import ReelTestSupport
import Testing

/// Sources in other matrices, depths, subsamplings and transfers come out as close to the
/// source as ffmpeg's own conversion of the same kind (docs/rendering.md, "Colour
/// conversion", "HDR sources"): for each source, ReelFarm's output and ffmpeg's (libx264
/// at the same crf) are measured against one reference in one run, and ReelFarm may be at
/// most 1 dB below. Every file is decoded to RGB with accurate chroma interpolation, at
/// the chroma location it declares.
@Suite struct ColourConversionTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        /// How ffmpeg makes the source from testsrc2.
        var make: [String]
        /// ffmpeg's same conversion to BT.709 4:2:0.
        var peer: String
        /// The source decoded to the reference RGB picture; nil: decoded as it is tagged.
        var reference: String? = nil
        var description: String { name }
    }

    static let bt601 = "scale=in_color_matrix=bt601:out_color_matrix=bt709,format=yuv420p"
    static let tagged601 = ["-colorspace", "smpte170m", "-color_primaries", "smpte170m", "-color_trc", "smpte170m"]
    static let hlg = "zscale=tin=arib-std-b67:pin=bt2020:min=bt2020nc:t=bt709:p=bt709"
    static let pq = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=mobius:desat=0,zscale=t=bt709"

    static func x264(_ format: String, _ extra: [String] = []) -> [String] {
        ["-vf", "format=\(format)", "-c:v", "libx264", "-crf", "10"] + extra
    }

    /// HDR 10-bit HEVC of BT.709 content up to SDR white, made by the inverse conversion.
    static func hdr(_ transfer: String) -> [String] {
        ["-vf", "zscale=tin=bt709:pin=bt709:min=bt709:rin=tv:t=\(transfer):p=bt2020:m=bt2020nc:r=tv:npl=100,format=yuv420p10le",
         "-c:v", "libx265", "-x265-params", "crf=10:log-level=error", "-tag:v", "hvc1",
         "-color_primaries", "bt2020", "-color_trc", transfer, "-colorspace", "bt2020nc"]
    }

    static let cases = [
        Case(name: "H.264 4:2:0 BT.601 (smpte170m)", make: x264("yuv420p", tagged601), peer: bt601),
        Case(name: "H.264 4:2:0 BT.601 (bt470bg)", make: x264("yuv420p", ["-colorspace", "bt470bg"]), peer: bt601),
        Case(name: "H.264 4:2:0 untagged, 360 lines", make: x264("yuv420p"), peer: bt601),
        Case(name: "H.264 4:2:0 BT.601 chroma top-left", make: x264("yuv420p", tagged601 + ["-x264-params", "chromaloc=2"]),
             peer: bt601),
        Case(name: "H.264 4:2:0 10-bit BT.601", make: x264("yuv420p10le", tagged601), peer: bt601),
        Case(name: "H.264 4:2:2 10-bit BT.601", make: x264("yuv422p10le", tagged601), peer: bt601),
        Case(name: "H.264 4:4:4 BT.601", make: x264("yuv444p", tagged601), peer: bt601),
        Case(name: "ProRes 422 HQ 10-bit untagged", make: ["-vf", "format=yuv422p10le", "-c:v", "prores_ks", "-profile:v", "2"],
             peer: bt601),
        Case(name: "H.264 4:2:0 10-bit BT.2020 SDR", make: x264("yuv420p10le", ["-colorspace", "bt2020nc"]),
             peer: "scale=in_color_matrix=bt2020:out_color_matrix=bt709,format=yuv420p"),
        Case(name: "HEVC 10-bit HLG", make: hdr("arib-std-b67"), peer: "\(hlg):m=bt709:r=tv,format=yuv420p", reference: hlg),
        Case(name: "HEVC 10-bit PQ", make: hdr("smpte2084"), peer: "\(pq):m=bt709:r=tv,format=yuv420p", reference: pq),
    ]

    @Test(arguments: cases)
    func comesOutAsCloseAsFFmpegsOwnConversion(_ c: Case) throws {
        let fixture = try RenderFixture("colour-\(Self.cases.firstIndex { $0.name == c.name } ?? 0)")
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let source = fixture.path("source.mov")
        try run(ffmpeg, ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=0.4"] + c.make + [source])
        try fixture.session(#"{"video": {"videoSegments": [{"source": "source.mov"}]}}"#)
        let reel = try fixture.rendered(to: "reel.mp4", ["--crf", "10", "--in-process", "--no-audio"])
        let peer = fixture.path("peer.mp4")
        try run(ffmpeg, ["-i", source, "-vf", c.peer, "-c:v", "libx264", "-crf", "10",
                         "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", peer])
        let reference = try c.reference.map { "\($0),format=gbrp" } ?? decoder(for: source)
        let ours = try psnr(ffmpeg, reel, source, reference: reference)
        let theirs = try psnr(ffmpeg, peer, source, reference: reference)
        #expect(ours >= theirs - 1, "ReelFarm \(ours) dB, ffmpeg \(theirs) dB")
    }

    /// Decoding to RGB with accurate chroma interpolation at the declared chroma location.
    private func decoder(for file: String) throws -> String {
        let ffprobe = try #require(ProcessRunner.which("ffprobe"))
        let probe = try ProcessRunner.run(ffprobe, ["-v", "error", "-select_streams", "v", "-show_entries",
                                                    "stream=chroma_location", "-of", "csv=p=0", file])
        let positions = switch probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "left": ":in_h_chr_pos=0:in_v_chr_pos=128"
        case "topleft": ":in_h_chr_pos=0:in_v_chr_pos=0"
        case "center": ":in_h_chr_pos=128:in_v_chr_pos=128"
        default: ""
        }
        return "scale=flags=bicubic+accurate_rnd+full_chroma_int\(positions),format=gbrp"
    }

    /// PSNR (dB) of `output`'s frame 10 against `source`'s through `reference`.
    private func psnr(_ ffmpeg: String, _ output: String, _ source: String, reference: String) throws -> Double {
        let run = try ProcessRunner.run(ffmpeg, [
            "-i", output, "-i", source, "-lavfi",
            "[0:v]select=eq(n\\,10),\(try decoder(for: output))[a];[1:v]select=eq(n\\,10),\(reference)[b];[a][b]psnr",
            "-f", "null", "-",
        ])
        let value = run.stderr.firstMatch(of: /PSNR r:[0-9.inf]+ g:[0-9.inf]+ b:[0-9.inf]+ average:([0-9.]+)/).flatMap { Double($0.1) }
        return try #require(value, "\(run.stderr.suffix(500))")
    }

    private func run(_ ffmpeg: String, _ arguments: [String]) throws {
        let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-y"] + arguments)
        try #require(made.status == 0, "\(made.stderr)")
    }
}
