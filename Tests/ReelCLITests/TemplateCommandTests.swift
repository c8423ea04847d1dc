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

    /// A saved edit re-applied: `--from OUT.reel.json` reads the session a render recorded,
    /// and its sidecar's geometry stands in for the old media, which may be gone.
    @Test func aSidecarIsATemplateWithoutItsOldMedia() throws {
        let fx = try fixture()
        #expect(try fx.render("s.json", to: "saved.mp4").status == 0)
        let direct = try TestEnvironment.reel(["render", "s.json", "--replace", "land.mp4=port.mp4", "-o", "direct.mp4"], in: fx.dir)
        #expect(direct.status == 0, "\(direct.stderr)")
        // Elsewhere, with only the sidecar and the new media.
        let elsewhere = fx.dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        for name in ["saved.reel.json", "port.mp4"] {
            try FileManager.default.copyItem(atPath: fx.path(name), toPath: elsewhere.appendingPathComponent(name).path)
        }
        let again = try TestEnvironment.reel(["render", "--from", "saved.reel.json", "--replace", "land.mp4=port.mp4", "-o", "again.mp4"],
                                             in: elsewhere)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Data(contentsOf: elsewhere.appendingPathComponent("again.mp4")) == Data(contentsOf: URL(fileURLWithPath: fx.path("direct.mp4"))))
        // So does a batch from the sidecar, through the farm's own replacement.
        try #"{"name": "v", "replace": {"land.mp4": "port.mp4"}}"#.write(to: elsewhere.appendingPathComponent("v.jsonl"), atomically: true, encoding: .utf8)
        let batch = try TestEnvironment.reel(["batch", "--from", "saved.reel.json", "v.jsonl", "--out-dir", "out"], in: elsewhere)
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try Data(contentsOf: elsewhere.appendingPathComponent("out/v.mp4")) == Data(contentsOf: URL(fileURLWithPath: fx.path("direct.mp4"))))

        // A sidecar that does not record the old size (an older release's), the old file
        // gone: the crop cannot be carried, and the error says what is missing.
        let url = elsewhere.appendingPathComponent("saved.reel.json")
        var sidecar = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        #expect(sidecar["geometry"] != nil)
        sidecar["geometry"] = nil
        try JSONSerialization.data(withJSONObject: sidecar).write(to: url)
        let blind = try TestEnvironment.reel(["validate", "--from", "saved.reel.json", "--replace", "land.mp4=port.mp4"], in: elsewhere)
        #expect(blind.status == 2 && blind.stderr.contains("video.videoSegments[0].source")
                && blind.stderr.contains("the size of 'land.mp4' is not known (no file, no sidecar)"), "\(blind.stderr)")
        // Both a session and a sidecar, or a file that is not a sidecar: exit 2.
        let both = try TestEnvironment.reel(["validate", "s.json", "--from", "saved.reel.json"], in: fx.dir)
        #expect(both.status == 2 && both.stderr.contains("not both"), "\(both.stderr)")
        let notSidecar = try TestEnvironment.reel(["validate", "--from", "s.json"], in: fx.dir)
        #expect(notSidecar.status == 2 && notSidecar.stderr.contains("is not a render's sidecar"), "\(notSidecar.stderr)")
    }
}
