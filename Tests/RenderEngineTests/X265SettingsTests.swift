import Foundation
import ReelTestSupport
import Testing
@testable import RenderEngine

/// x265 has no `cpu-independent` switch (docs/rendering.md, "HEVC output"). What stands in
/// for it: with the chunk settings ReelFarm passes, every SIMD level x265 can pick on some
/// processor writes the same bytes as its plain C code. This test runs libx265 (through
/// ffmpeg) with the engine's own parameter string at each level and compares the streams,
/// so a setting that made the levels disagree would fail here.
@Suite struct X265SettingsTests {
    @Test func theChunkSettingsGiveTheSameBytesAtEverySIMDLevel() throws {
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let dir = try TestEnvironment.scratchDirectory()
        var media = SampleMedia()
        media.width = 200   // not a multiple of the 64-pixel CTU: the edges are where x265 read memory it never set
        media.height = 120
        media.duration = 1
        media.audio = false
        let source = dir.appendingPathComponent("s.mp4").path
        try media.write(to: source)
        let settings = EncoderSettings(crf: 23, preset: "medium", keyframeIntervalSeconds: 0.5, codec: .hevc)
        let options = VideoChunkWriter.options(settings, gop: 15)
        let params = try #require(options["x265-params"])
        var streams: [String: Data] = [:]
        for level in ["none", "sse2", "sse4.2", "avx", "avx2"] {
            let output = dir.appendingPathComponent("\(level).hevc").path
            let result = try ProcessRunner.run(ffmpeg, ["-v", "error", "-y", "-i", source, "-c:v", "libx265",
                                                        "-preset", "medium", "-crf", "23",
                                                        "-x265-params", "\(params):asm=\(level)", "-f", "hevc", output])
            #expect(result.status == 0, "\(level): \(result.stderr)")
            streams[level] = try Data(contentsOf: URL(fileURLWithPath: output))
        }
        let reference = try #require(streams["none"])
        #expect(reference.count > 1000)
        for (level, stream) in streams {
            #expect(stream == reference, "x265 with asm=\(level) wrote other bytes than its C code")
        }
    }
}
