import Foundation
import ReelTestSupport
import Testing

/// Every filter type through the farm: the same bytes from 1 and 3 workers, and looks
/// that travel to workers by content id.
@Suite(.serialized) struct FarmFilterTests {
    /// Every type of the catalogue (and a custom filter) spread over three segments.
    static let session = """
    {"sessionID": 7, "video": {"renderSize": [160, 96], "videoSegments": [
      {"source": "a.mp4", "trimDuration": 1.2, "filters": [
        {"type": "brightness", "normalizedIntensity": 0.4}, {"type": "contrast", "normalizedIntensity": -0.3},
        {"type": "saturation", "normalizedIntensity": 0.6}, {"type": "exposure", "normalizedIntensity": -0.2},
        {"type": "vibrance", "normalizedIntensity": 0.7}, {"type": "hue", "normalizedIntensity": 0.2},
        {"type": "warmth", "normalizedIntensity": -0.4}, {"type": "sharpness", "normalizedIntensity": 0.5},
        {"type": "gamma", "normalizedIntensity": 0.3}, {"type": "highlights", "normalizedIntensity": 40},
        {"type": "shadows", "normalizedIntensity": 60}, {"type": "vignette", "normalizedIntensity": 70},
        {"type": "speed"}]},
      {"source": "b.mp4", "trimDuration": 1.2, "filters": [
        {"type": "lookup", "image": "odd.png", "normalizedIntensity": 70}, {"type": "lut", "file": "look.cube"},
        {"type": "straighten", "normalizedIntensity": -9}, {"type": "horizontalPerspective", "normalizedIntensity": 12},
        {"type": "dreamy", "normalizedIntensity": 40}]},
      {"source": "a.mp4", "trimStartTime": 0.5, "trimDuration": 1.2, "filters": [
        {"type": "verticalPerspective", "normalizedIntensity": -15},
        {"type": "wilshire", "normalizedIntensity": 50}, {"type": "montana", "normalizedIntensity": 20},
        {"type": "sanVicente", "normalizedIntensity": 30}, {"type": "melrose", "normalizedIntensity": 40},
        {"type": "sepulveda", "normalizedIntensity": 50}, {"type": "laCienega", "normalizedIntensity": 60},
        {"type": "abbotKinney", "normalizedIntensity": 70}, {"type": "mulholland", "normalizedIntensity": 10},
        {"type": "sunset", "normalizedIntensity": 80}]}
    ]}}
    """

    static func prepare(_ farm: FarmFixture) throws {
        for (name, extra) in [("a.mp4", [String]()), ("b.mp4", ["--rotate", "90", "--tone", "660"])] {
            let r = try TestEnvironment.reel(["sample", farm.path(name), "--duration", "2.5", "--size", "160x96"] + extra)
            guard r.status == 0 else { throw Failure(r.stderr) }
        }
        var lattice = LooksAndSDKSessionTests.identityLattice()
        for i in stride(from: 0, to: lattice.count, by: 3) { lattice.swapAt(i, i + 2) }   // red ↔ blue
        try RGBImage(width: 512, height: 512, bytes: lattice).writePNG(to: farm.path("odd.png"))
        try TestEnvironment.write("LUT_3D_SIZE 2\n0 0 0.1\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 0.9 1\n1 1 1\n", to: "look.cube", in: farm.dir)
        try TestEnvironment.write(session, to: "s.json", in: farm.dir)
    }

    @Test func oneAndThreeWorkersGiveTheSameBytesWithEveryFilterType() throws {
        let farm = try FarmFixture()
        try Self.prepare(farm)
        let validate = try TestEnvironment.reel(["validate", "s.json"], in: farm.dir)
        #expect(validate.status == 0, "\(validate.stderr)")
        let one = try TestEnvironment.reel(["render", "s.json", "-o", "one.mp4", "--workers", "1"] + FarmFixture.shortGOP, in: farm.dir)
        let three = try TestEnvironment.reel(["render", "s.json", "-o", "three.mp4", "--workers", "3"] + FarmFixture.shortGOP, in: farm.dir)
        #expect(one.status == 0 && three.status == 0, "\(one.stderr) \(three.stderr)")
        let a = try Data(contentsOf: URL(fileURLWithPath: farm.path("one.mp4")))
        let b = try Data(contentsOf: URL(fileURLWithPath: farm.path("three.mp4")))
        #expect(!a.isEmpty && a == b, "1 and 3 workers gave different files")
        // And the in-process path agrees with the farm.
        let local = try TestEnvironment.reel(["render", "s.json", "-o", "local.mp4", "--in-process", "--workers", "2"] + FarmFixture.shortGOP,
                                             in: farm.dir)
        #expect(local.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: farm.path("local.mp4"))) == a)
        let video = try #require(try FFprobe.streams(farm.path("one.mp4")).first { $0.codecType == "video" })
        #expect(video.frameCount == 108)
    }

    /// The 17 visual effects over three segments (one turned portrait, so the oriented
    /// path runs), in the session's filters and primaryFilter too: 1 and 3 workers agree.
    static let effectsSession = """
    {"sessionID": 8, "video": {"renderSize": [160, 96], "videoSegments": [
      {"source": "a.mp4", "trimDuration": 1.2, "filters": [
        {"type": "pixellate", "normalizedIntensity": 60}, {"type": "SessionFilterFalseColor", "normalizedIntensity": 40},
        {"type": "sketch", "normalizedIntensity": 50}, {"type": "polkaDot"}, {"type": "halftone"},
        {"type": "sepiaTone", "normalizedIntensity": 70}]},
      {"source": "b.mp4", "trimDuration": 1.2, "filters": [
        {"type": "toon", "normalizedIntensity": 80}, {"type": "tiltShift", "normalizedIntensity": 30},
        {"type": "swirl", "normalizedIntensity": 60}, {"type": "bulge"}, {"type": "cgaColorspace", "normalizedIntensity": 50},
        {"type": "pinch", "normalizedIntensity": 20}]},
      {"source": "a.mp4", "trimStartTime": 0.5, "trimDuration": 1.2, "filters": [
        {"type": "edgeDetection", "normalizedIntensity": 70}, {"type": "sphereRefraction", "normalizedIntensity": 90},
        {"type": "SessionFilterGaussianBlur", "normalizedIntensity": 30}, {"type": "stretchDistortion", "normalizedIntensity": 40}]}
    ], "filters": [{"type": "luminanceThreshold", "normalizedIntensity": 10}],
       "primaryFilter": {"type": "gaussianBlur", "normalizedIntensity": 5}}}
    """

    @Test func oneAndThreeWorkersGiveTheSameBytesWithEveryVisualEffect() throws {
        let farm = try FarmFixture()
        try Self.prepare(farm)
        try TestEnvironment.write(Self.effectsSession, to: "e.json", in: farm.dir)
        let validate = try TestEnvironment.reel(["validate", "e.json"], in: farm.dir)
        #expect(validate.status == 0, "\(validate.stderr)")
        let one = try TestEnvironment.reel(["render", "e.json", "-o", "one.mp4", "--workers", "1"] + FarmFixture.shortGOP, in: farm.dir)
        let three = try TestEnvironment.reel(["render", "e.json", "-o", "three.mp4", "--workers", "3"] + FarmFixture.shortGOP, in: farm.dir)
        #expect(one.status == 0 && three.status == 0, "\(one.stderr) \(three.stderr)")
        let a = try Data(contentsOf: URL(fileURLWithPath: farm.path("one.mp4")))
        let b = try Data(contentsOf: URL(fileURLWithPath: farm.path("three.mp4")))
        #expect(!a.isEmpty && a == b, "1 and 3 workers gave different files")
        let video = try #require(try FFprobe.streams(farm.path("one.mp4")).first { $0.codecType == "video" })
        #expect(video.frameCount == 108)
        // The sidecar writes the SDK's class names back as types.
        let sidecar = try String(contentsOf: URL(fileURLWithPath: farm.path("one.reel.json")), encoding: .utf8)
        #expect(sidecar.contains("\"falseColor\"") && !sidecar.contains("SessionFilterFalseColor"))
    }

    /// A coordinator with `--looks` renders every job with its own looks, fetched by
    /// workers that have no looks directory.
    @Test func theFarmsLooksReplaceTheClients() throws {
        let farm = try FarmFixture()
        for name in ["a.mp4"] {
            let r = try TestEnvironment.reel(["sample", farm.path(name), "--duration", "1.5", "--size", "160x96", "--no-audio"])
            guard r.status == 0 else { throw Failure(r.stderr) }
        }
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "a.mp4", "filters": [{"type": "mulholland"}]}]}}"#,
                                  to: "s.json", in: farm.dir)
        // The farm's "mulholland": colours swapped, nothing like the shipped black and white.
        let looks = farm.dir.appendingPathComponent("farm-looks")
        try FileManager.default.createDirectory(at: looks, withIntermediateDirectories: true)
        var lattice = LooksAndSDKSessionTests.identityLattice()
        for i in stride(from: 0, to: lattice.count, by: 3) { lattice.swapAt(i, i + 1) }
        try RGBImage(width: 512, height: 512, bytes: lattice).writePNG(to: looks.appendingPathComponent("mulholland.png").path)
        try farm.startCoordinator(["--looks", looks.path])
        try farm.startWorker("a")
        let job = try farm.submit()
        let output = try farm.fetched(job)
        let expected = try TestEnvironment.reel(["render", "s.json", "-o", "expected.mp4", "--in-process", "--looks", looks.path] + FarmFixture.shortGOP,
                                                in: farm.dir)
        #expect(expected.status == 0, "\(expected.stderr)")
        #expect(output == (try Data(contentsOf: URL(fileURLWithPath: farm.path("expected.mp4")))))
        // The client's own (shipped) look would have given another picture.
        #expect(output != (try farm.reference()))
        #expect(farm.log("worker-a.log").contains("fetching sha256:"))
    }
}
