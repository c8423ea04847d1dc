import Foundation
import ReelTestSupport
import Testing

/// `--replace OLD=NEW` on the commands that read a session (docs/session-format.md, "Templates").
@Suite struct TemplateCommandTests {
    private func fixture(_ name: String = #function) throws -> RenderFixture {
        let fx = try RenderFixture(name)
        try fx.sample("land.mp4", ["--duration", "3", "--size", "640x360", "--no-audio"])
        try fx.sample("port.mp4", ["--duration", "2", "--size", "640x360", "--no-audio", "--rotate", "90"])
        try fx.session("""
        {"video": {"renderSize": [320, 180], "videoSegments": [
          {"source": "land.mp4", "trimStartTime": 1, "trimDuration": 1.5, "cropRect": [[160, 90], [320, 180]]}
        ]}}
        """)
        return fx
    }

    @Test func inspectShowsTheCarriedCropAndTheCutTrim() throws {
        let fx = try fixture()
        let r = try TestEnvironment.reel(["inspect", "s.json", "--replace", "land.mp4=port.mp4", "--json"], in: fx.dir)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        let segment = try #require((json["segments"] as? [[String: Any]])?.first)
        #expect(segment["source"] as? String == "port.mp4")
        // 640×360 → 360×640 on screen: ratios 0.5625 and 1.7778; the centre (320, 180) goes to
        // (180, 320); 320×180 × 1.7778 = 568.9×320 is shrunk by 360/568.9 to 360×202.5.
        let crop = try #require(segment["cropRect"] as? [[Double]])
        let expected: [[Double]] = [[0, 320 - 101.25], [360, 202.5]]
        #expect(zip(crop.flatMap { $0 }, expected.flatMap { $0 }).allSatisfy { abs($0 - $1) < 1e-6 }, "\(crop)")
        // Trim 1 + 1.5 s cut at the new clip's 2 s: 1 s, 30 frames.
        #expect(segment["frameCount"] as? Int == 30)

        // The render has the template's size and the cut trim's frames; its sidecar records
        // the session as rendered, on the new media.
        let render = try TestEnvironment.reel(["render", "s.json", "--replace", "land.mp4=port.mp4", "-o", "out.mp4"], in: fx.dir)
        #expect(render.status == 0, "\(render.stderr)")
        let video = try #require(try FFprobe.streams(fx.path("out.mp4")).first { $0.codecType == "video" })
        #expect(video.width == 320 && video.height == 180 && video.frameCount == 30, "\(video)")
        let sidecar = try String(contentsOfFile: fx.path("out.reel.json"), encoding: .utf8)
        #expect(sidecar.contains("port.mp4") && !sidecar.contains("\"land.mp4\""))
    }

    @Test func badReplacementsExitTwoWithOneLine() throws {
        let fx = try fixture()
        let cases: [([String], String)] = [
            (["--replace", "other.mp4=port.mp4"], "'other.mp4' is not a source of the session"),
            (["--replace", "land.mp4=missing.mp4"], "missing.mp4"),
            (["--replace", "land.mp4"], "use OLD=NEW"),
            (["--replace", "land.mp4=port.mp4", "--replace", "land.mp4=land.mp4"], "replaced twice"),
        ]
        for (arguments, message) in cases {
            let r = try TestEnvironment.reel(["validate", "s.json"] + arguments, in: fx.dir)
            #expect(r.status == 2 && r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
        // A trim that starts past the new end names the path and both durations.
        try fx.session(#"{"video": {"videoSegments": [{"source": "land.mp4", "trimStartTime": 2.5}]}}"#)
        let late = try TestEnvironment.reel(["validate", "s.json", "--replace", "land.mp4=port.mp4"], in: fx.dir)
        #expect(late.status == 2 && late.stderr.contains("video.videoSegments[0].trimStartTime")
                && late.stderr.contains("2.5") && late.stderr.contains("2.0 s long") && late.stderr.contains("3.0 s"), "\(late.stderr)")
    }
}
