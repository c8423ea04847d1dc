import Foundation
import ReelTestSupport
import Testing

/// HDR sources are made SDR BT.709 before the filters (docs/rendering.md, "HDR sources"),
/// matching ffmpeg's reference conversions (zimg's `zscale`, `tonemap=mobius`) on content
/// up to SDR reference white, and far from reading the pictures as if they were BT.709.
@Suite struct HDRSourceTests {
    struct Case: Sendable, CustomStringConvertible {
        var transfer: String
        var reference: String
        var description: String { transfer }
    }

    static let cases = [
        Case(transfer: "arib-std-b67",
             reference: "zscale=tin=arib-std-b67:pin=bt2020:min=bt2020nc:t=bt709:p=bt709:m=bt709:r=tv"),
        Case(transfer: "smpte2084",
             reference: "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=mobius:desat=0,zscale=t=bt709:m=bt709:r=tv"),
    ]

    @Test(arguments: cases)
    func anHDRClipMatchesTheReferenceConversion(_ hdr: Case) throws {
        let fixture = try RenderFixture("hdr-\(hdr.transfer)")
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        // 10-bit HEVC tagged BT.2020 + the transfer; the test pattern kept below SDR white
        // (60 % of the signal range) and at half saturation.
        let made = try ProcessRunner.run(ffmpeg, [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=0.5",
            "-vf", "format=yuv420p10le,lutyuv=y='64+(val-64)*0.6':u='512+(val-512)*0.5':v='512+(val-512)*0.5'",
            "-c:v", "libx265", "-x265-params", "crf=10:colorprim=bt2020:transfer=\(hdr.transfer):colormatrix=bt2020nc:log-level=error",
            "-color_primaries", "bt2020", "-color_trc", hdr.transfer, "-colorspace", "bt2020nc", "-tag:v", "hvc1",
            fixture.path("hdr.mov"),
        ])
        try #require(made.status == 0, "\(made.stderr)")
        try fixture.session(#"{"video": {"videoSegments": [{"source": "hdr.mov"}]}}"#)
        let output = try fixture.rendered(to: "out.mp4", ["--crf", "8", "--in-process"])

        let converted = try psnr(ffmpeg, output, fixture.path("hdr.mov"), reference: hdr.reference)
        let naive = try psnr(ffmpeg, output, fixture.path("hdr.mov"), reference: "null")
        #expect(converted >= 33, "PSNR \(converted) dB against \(hdr.reference)")
        #expect(naive < 25, "PSNR \(naive) dB against the pictures read as BT.709: no conversion was made")
    }

    /// The average PSNR (dB) of `output` against `source` through the reference chain.
    private func psnr(_ ffmpeg: String, _ output: String, _ source: String, reference: String) throws -> Double {
        let run = try ProcessRunner.run(ffmpeg, [
            "-i", output, "-i", source, "-lavfi", "[1:v]\(reference),format=yuv420p[ref];[0:v][ref]psnr", "-f", "null", "-",
        ])
        let value = run.stderr.firstMatch(of: /PSNR y:[0-9.inf]+ u:[0-9.inf]+ v:[0-9.inf]+ average:([0-9.]+)/).flatMap { Double($0.1) }
        return try #require(value, "\(run.stderr.suffix(500))")
    }
}
