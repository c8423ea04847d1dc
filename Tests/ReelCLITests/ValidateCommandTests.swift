import Foundation
import ReelTestSupport
import Testing

@Suite struct ValidateCommandTests {
    @Test func validSessionExitsZero() throws {
        let dir = try Scratch.withClip()
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "clip.mp4", "trimDuration": 1}]}}"#, to: "s.json", in: dir)
        let result = try TestEnvironment.reel(["validate", "s.json"], in: dir)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
    }

    /// A misspelt key is a warning with its path and the nearest key, never an error (a
    /// newer SDK may add keys); a filter's own extra keys are its parameters.
    @Test func unknownKeysAreWarnedWithThePathAndTheNearestKey() throws {
        let dir = try Scratch.withClip()
        try TestEnvironment.write("""
        {"video": {"videoSegments": [
          {"source": "clip.mp4", "trimEnd": 1, "filters": [{"type": "saturation", "normalizedIntensity": 0.5, "strength": 2}]},
          {"source": "clip.mp4", "trimStart": 0.5, "location": {"latitude": 1, "longitude": 2, "altitud": 3}}
        ], "renderSise": [320, 240]}, "futureField": true}
        """, to: "s.json", in: dir)
        let result = try TestEnvironment.reel(["validate", "s.json"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines == [
            "reel: warning: futureField: unknown key (ignored)",
            "reel: warning: video.renderSise: unknown key, did you mean renderSize? (ignored)",
            "reel: warning: video.videoSegments[0].trimEnd: unknown key, did you mean trimDuration? (ignored)",
            "reel: warning: video.videoSegments[1].location.altitud: unknown key, did you mean altitude? (ignored)",
            "reel: warning: video.videoSegments[1].trimStart: unknown key, did you mean trimStartTime? (ignored)",
        ])
    }

    @Test func threeMistakesAreAllReportedWithTheirPaths() throws {
        let dir = try Scratch.withClip()
        try TestEnvironment.write("""
        {"video": {"videoSegments": [
          {"source": "clip.mp4", "trimStartTime": 0.5, "trimDuration": 4.2},
          {"source": "clip.mp4", "speedMultiplier": -2},
          {"source": "clip.mp4", "filters": [{"type": "sepia"}]}
        ]}}
        """, to: "s.json", in: dir)
        let result = try TestEnvironment.reel(["validate", "s.json"], in: dir)
        #expect(result.status == 2)
        #expect(result.stderrLines == [
            "reel: error: video.videoSegments[0].trimDuration: 4.2 s exceeds duration - trimStartTime (1.5 s)",
            "reel: error: video.videoSegments[1].speedMultiplier: -2 must be a finite number greater than 0",
            "reel: error: video.videoSegments[2].filters[0].type: unknown filter type 'sepia' (did you mean 'sepiaTone'?); known types: abbotKinney, brightness, bulge, cgaColorspace, contrast, edgeDetection, exposure, falseColor, gamma, gaussianBlur, halftone, highlights, horizontalPerspective, hue, laCienega, lookup, luminanceThreshold, lut, melrose, montana, mulholland, pinch, pixellate, polkaDot, sanVicente, saturation, sepiaTone, sepulveda, shadows, sharpness, sketch, speed, sphereRefraction, straighten, stretchDistortion, sunset, swirl, tiltShift, toon, verticalPerspective, vibrance, vignette, warmth, wilshire",
        ])
    }

    @Test func jsonReportListsProblemsAndWarnings() throws {
        let dir = try Scratch.withClip()
        try TestEnvironment.write(#"{"video": {"renderSize": [321, 240], "videoSegments": [{"source": "missing.mp4"}, {"source": "clip.mp4"}]}}"#,
                                  to: "s.json", in: dir)
        let result = try TestEnvironment.reel(["validate", "s.json", "--json"], in: dir)
        #expect(result.status == 2)
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        #expect(report["valid"] as? Bool == false)
        let problems = try #require(report["problems"] as? [[String: String]])
        #expect(problems.map { $0["path"] } == ["video.videoSegments[0].source"])
        #expect(problems.first?["message"]?.contains("not found") == true)
        let warnings = try #require(report["warnings"] as? [[String: String]])
        #expect(warnings.map { $0["path"] } == ["video.renderSize"])
    }

    @Test(arguments: [
        (#"{"video": {"videoSegments": [{"source": "clip.mp4""#, "not valid JSON: line 1"),
        (#"{"video": {"videoSegments": [{"source": 42}]}}"#, "video.videoSegments[0].source: expected a string"),
        (#"{"video": {"videoSegments": [{"source": "clip.mp4", "trimDuration": {"value": 1e30, "timescale": 1}}]}}"#,
         "video.videoSegments[0].trimDuration.value:"),
        (#"{"formatVersion": "3.1", "video": {"videoSegments": []}}"#, "formatVersion: version 3.1 is newer"),
        ("\u{0}\u{1}binary", "not valid JSON"),
    ])
    func malformedDocumentsExitTwoWithOneLine(document: String, expected: String) throws {
        let dir = try Scratch.withClip()
        try TestEnvironment.write(document, to: "s.json", in: dir)
        let result = try TestEnvironment.reel(["validate", "s.json"], in: dir)
        #expect(result.status == 2)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains(expected))
    }

    @Test func tenThousandSegmentsAreHandled() throws {
        let dir = try Scratch.withClip()
        let segments = Array(repeating: #"{"source": "clip.mp4", "trimDuration": 0.5}"#, count: 10_000).joined(separator: ",")
        try TestEnvironment.write(#"{"video": {"videoSegments": [\#(segments)]}}"#, to: "s.json", in: dir)
        let result = try TestEnvironment.reel(["validate", "s.json"], in: dir)
        #expect(result.status == 0)
        let inspect = try TestEnvironment.reel(["inspect", "s.json", "--json"], in: dir)
        let json = try #require(try JSONSerialization.jsonObject(with: inspect.stdoutData) as? [String: Any])
        #expect(json["totalFrames"] as? Int == 150_000)
    }

    @Test func unreadableInputsExitTwo() throws {
        let dir = try Scratch.withClip()
        #expect(try TestEnvironment.reel(["validate", "nonexistent.json"], in: dir).status == 2)
        try TestEnvironment.write("this is not a video", to: "fake.mp4", in: dir)
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "fake.mp4"}]}}"#, to: "s.json", in: dir)
        let result = try TestEnvironment.reel(["validate", "s.json"], in: dir)
        #expect(result.status == 2)
        #expect(result.stderr.contains("video.videoSegments[0].source:"))
        #expect(result.stderr.contains("not readable as media"))
    }

    @Test func mediaRootsConfineThePaths() throws {
        let dir = try Scratch.withClip()
        let sub = dir.appendingPathComponent("project")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "../clip.mp4"}]}}"#, to: "project/s.json", in: dir)
        let refused = try TestEnvironment.reel(["validate", "project/s.json"], in: dir)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("outside the media roots"))
        let allowed = try TestEnvironment.reel(["validate", "project/s.json", "--media-root", dir.path], in: dir)
        #expect(allowed.status == 0)
    }
}
