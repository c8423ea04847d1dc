import Foundation
import ReelTestSupport
import Testing

@Suite struct ExamplesTests {
    @Test func bundledExamplesValidateAndInspect() throws {
        let dir = try Examples.prepare()
        for name in Examples.sessions {
            let validate = try TestEnvironment.reel(["validate", name], in: dir)
            #expect(validate.status == 0, "\(name): \(validate.stderr)")
            let inspect = try TestEnvironment.reel(["inspect", name, "--json"], in: dir)
            #expect(inspect.status == 0, "\(name): \(inspect.stderr)")
        }
    }

    /// Media as phones and cameras write them in one session (examples/phone-mix.json): an
    /// HLG HEVC clip turned portrait, ProRes 4:2:2 10-bit, a variable-frame-rate clip with
    /// 44.1 kHz mono sound and 5.1 sound at 1.5×.
    @Test func thePhoneMixRendersOnTheFarm() throws {
        let dir = try Examples.prepare()
        let render = try TestEnvironment.reel(["render", "phone-mix.json", "-o", "mix.mp4", "--workers", "2"], in: dir)
        #expect(render.status == 0, "\(render.stderr)")
        let streams = try FFprobe.streams(dir.appendingPathComponent("mix.mp4").path)
        // 2 s + 2 s + 2 s at 30 fps, and 2 s at 1.5×: 60 + 60 + 60 + 40.
        #expect(streams.first { $0.codecType == "video" }?.frameCount == 220)
        let audio = streams.first { $0.codecType == "audio" }
        #expect(audio?.channels == 2 && audio?.sampleRate == 48000)
        let sidecar = try String(contentsOf: dir.appendingPathComponent("mix.reel.json"), encoding: .utf8)
        #expect(sidecar.contains(#""media/phone-hlg-portrait.mov" : "HLG BT.2020 → SDR BT.709"#), "\(sidecar.prefix(400))")
    }

    @Test func schemaAcceptsTheExamplesAndAgreesWithTheValidator() throws {
        let dir = try Examples.prepare()
        // Documents that are wrong in structure: the schema and `reel validate` must both refuse them.
        let wrong = [
            #"{"video": {"videoSegments": [{"source": 7}]}}"#,
            #"{"video": {"videoSegments": [{"source": "media/landscape.mp4", "cropRect": [1, 2, 3]}]}}"#,
            #"{"video": {"videoSegments": [{"source": "media/landscape.mp4"}]}, "image": {"source": "media/photo.jpg"}}"#,
            #"{"formatVersion": "2.0", "video": {"videoSegments": [{"source": "media/landscape.mp4"}]}}"#,
            #"{"video": {"videoSegments": [{"source": "media/landscape.mp4", "trimDuration": {"value": 1, "timescale": 0}}]}}"#,
            #"{"video": {"videoSegments": [{"source": "media/landscape.mp4", "filters": [{"type": "lut"}]}]}}"#,
        ]
        var wrongPaths: [String] = []
        for (i, text) in wrong.enumerated() {
            wrongPaths.append(try TestEnvironment.write(text, to: "wrong-\(i).json", in: dir))
        }
        let python = try #require(ProcessRunner.which("python3"))
        let check = try ProcessRunner.run(python, [
            TestEnvironment.packageRoot.appendingPathComponent("Tests/schema-check.py").path,
            TestEnvironment.packageRoot.appendingPathComponent("docs/session.schema.json").path,
        ] + Examples.sessions.map { dir.appendingPathComponent($0).path } + wrongPaths)
        #expect(check.status == 0, "\(check.stderr)")
        let verdicts = check.stdout.split(separator: "\n").map(String.init)
        #expect(verdicts.count == Examples.sessions.count + wrong.count)
        #expect(verdicts.prefix(Examples.sessions.count).allSatisfy { $0 == "valid" }, "\(verdicts)")
        #expect(verdicts.suffix(wrong.count).allSatisfy { $0.hasPrefix("invalid") }, "\(verdicts)")
        for path in wrongPaths {
            #expect(try TestEnvironment.reel(["validate", path], in: dir).status == 2, "\(path)")
        }
    }
}
