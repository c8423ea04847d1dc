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
