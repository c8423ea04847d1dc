import Foundation
import ReelTestSupport
import Testing

/// Orientation, crop and scale checked by the colours of the picture's quadrants (docs/geometry.md).
@Suite struct RenderPictureTests {
    /// The sample's quadrants in RGB: red, green, blue, white (top-left, top-right, bottom-left, bottom-right).
    static let quadrantColors: [(Double, Double, Double)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]

    /// Which source quadrant the point (x, y) of a `w`×`h` picture lies in.
    static func quadrant(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> Int {
        (y < h / 2 ? 0 : 2) + (x < w / 2 ? 0 : 1)
    }

    /// The source quadrant shown at oriented point (x', y') for transform (a, b, c, d):
    /// x' = a·x + c·y + tx, y' = b·x + d·y + ty, translated into the positive quadrant.
    static func sourceQuadrant(atOriented xp: Double, _ yp: Double, a: Double, b: Double, c: Double, d: Double,
                               w: Double, h: Double) -> Int {
        let corners = [(0.0, 0.0), (w, 0), (0, h), (w, h)]
        let tx = -corners.map { a * $0.0 + c * $0.1 }.min()!
        let ty = -corners.map { b * $0.0 + d * $0.1 }.min()!
        // Solve the 2×2 system (its determinant is ±1).
        let det = a * d - b * c
        let u = xp - tx, v = yp - ty
        let x = (d * u - c * v) / det, y = (-b * u + a * v) / det
        return quadrant(x, y, w, h)
    }

    static func nearestQuadrantColor(_ rgb: (Double, Double, Double)) -> Int {
        quadrantColors.indices.min { i, j in
            let a = quadrantColors[i], b = quadrantColors[j]
            let da = pow(a.0 - rgb.0, 2) + pow(a.1 - rgb.1, 2) + pow(a.2 - rgb.2, 2)
            let db = pow(b.0 - rgb.0, 2) + pow(b.1 - rgb.1, 2) + pow(b.2 - rgb.2, 2)
            return da < db
        }!
    }

    /// Mean RGB of the middle half of an output region.
    static func regionColor(_ frame: [UInt8], width: Int, x0: Int, y0: Int, x1: Int, y1: Int) -> (Double, Double, Double) {
        let (mx, my) = ((x1 - x0) / 4, (y1 - y0) / 4)
        var sum = (0.0, 0.0, 0.0), count = 0.0
        for y in (y0 + my)..<(y1 - my) {
            for x in (x0 + mx)..<(x1 - mx) {
                let i = (y * width + x) * 3
                sum = (sum.0 + Double(frame[i]), sum.1 + Double(frame[i + 1]), sum.2 + Double(frame[i + 2]))
                count += 1
            }
        }
        return (sum.0 / count, sum.1 / count, sum.2 / count)
    }

    static let orientations: [[Double]] = [
        [1, 0, 0, 1], [0, 1, -1, 0], [-1, 0, 0, -1], [0, -1, 1, 0],
        [-1, 0, 0, 1], [1, 0, 0, -1], [0, -1, -1, 0], [0, 1, 1, 0],
    ]

    @Test(arguments: orientations)
    func everyOrientationPutsEachQuadrantWhereTheTransformSays(m: [Double]) throws {
        let fx = try RenderFixture("orient\(m.map { Int($0) })")
        try fx.sample("q.mp4", ["--duration", "0.5", "--size", "160x96", "--pattern", "quadrants", "--no-audio"])
        let swaps = m[0] == 0
        let (w, h) = swaps ? (96, 160) : (160, 96)
        try fx.session(#"{"video": {"videoSegments": [{"source": "q.mp4", "preferredTransform": [\#(m[0]), \#(m[1]), \#(m[2]), \#(m[3]), 0, 0]}]}}"#)
        let out = try fx.rendered()
        let frame = try #require(try DecodedMedia.rgbFrames(out, width: w, height: h).first)
        for (qx, qy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let (x0, y0) = (qx * w / 2, qy * h / 2)
            let seen = Self.nearestQuadrantColor(Self.regionColor(frame, width: w, x0: x0, y0: y0, x1: x0 + w / 2, y1: y0 + h / 2))
            let expected = Self.sourceQuadrant(atOriented: Double(x0) + Double(w) / 4, Double(y0) + Double(h) / 4,
                                               a: m[0], b: m[1], c: m[2], d: m[3], w: 160, h: 96)
            #expect(seen == expected, "output quadrant (\(qx), \(qy))")
        }
    }

    @Test func portraitSourceCroppedAndScaled() throws {
        let fx = try RenderFixture()
        // A phone's portrait clip: 160×96 coded, shown 96×160 (display matrix, no preferredTransform).
        try fx.sample("p.mp4", ["--duration", "0.5", "--size", "160x96", "--pattern", "quadrants", "--rotate", "90", "--no-audio"])
        // The oriented picture's top-left quarter, scaled up to 96×160.
        try fx.session(#"{"video": {"renderSize": [96, 160], "videoSegments": [{"source": "p.mp4", "cropRect": [[0, 0], [48, 80]]}]}}"#)
        let out = try fx.rendered()
        let frame = try #require(try DecodedMedia.rgbFrames(out, width: 96, height: 160).first)
        let expected = Self.sourceQuadrant(atOriented: 24, 40, a: 0, b: 1, c: -1, d: 0, w: 160, h: 96)
        for (x0, y0) in [(0, 0), (48, 0), (0, 80), (48, 80)] {
            let seen = Self.nearestQuadrantColor(Self.regionColor(frame, width: 96, x0: x0, y0: y0, x1: x0 + 48, y1: y0 + 80))
            #expect(seen == expected)
        }
    }

    @Test func oddSourceSizesRenderToEvenOutput() throws {
        let fx = try RenderFixture()
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=161x97:rate=30", "-t", "1",
                                                  "-c:v", "libx264", "-pix_fmt", "yuv444p", fx.path("odd.mp4")])
        #expect(made.status == 0, "\(made.stderr)")
        try fx.session(#"{"video": {"videoSegments": [{"source": "odd.mp4"}]}}"#)
        let result = try fx.render()
        #expect(result.status == 0, "\(result.stderr)")
        let video = try #require(try FFprobe.streams(fx.path("out.mp4")).first)
        #expect(video.width == 160 && video.height == 96)
        #expect(video.frameCount == 30)
    }

    @Test func corruptSourceFailsWithExitOneAndLeavesNothing() throws {
        let fx = try RenderFixture()
        try fx.sample("c.mp4", ["--duration", "2", "--size", "160x96"])
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fx.path("c.mp4"))))
        // Flip bits across the middle of the media data; the index at the end stays intact.
        for i in stride(from: bytes.count * 3 / 10, to: bytes.count * 6 / 10, by: 97) { bytes[i] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: fx.path("c.mp4")))
        try fx.session(#"{"video": {"videoSegments": [{"source": "c.mp4"}]}}"#)
        #expect(try TestEnvironment.reel(["validate", "s.json"], in: fx.dir).status == 0)
        let result = try fx.render()
        #expect(result.status == 1)
        #expect(result.stderr.contains("corrupt"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fx.dir.path).sorted() == ["c.mp4", "s.json"])
    }

    @Test func truncatedSourceIsRefusedBeforeRendering() throws {
        let fx = try RenderFixture()
        try fx.sample("t.mp4", ["--duration", "2", "--size", "160x96"])
        let data = try Data(contentsOf: URL(fileURLWithPath: fx.path("t.mp4")))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: fx.path("t.mp4")))
        try fx.session(#"{"video": {"videoSegments": [{"source": "t.mp4"}]}}"#)
        let result = try fx.render()
        #expect(result.status == 2)
        #expect(result.stderr.contains("video.videoSegments[0].source"))
        #expect(!FileManager.default.fileExists(atPath: fx.path("out.mp4")))
    }

    /// A 0-byte file and a video whose codec this libavcodec cannot decode (an unknown
    /// FourCC in Matroska) are refused at validation: exit 2, one line with the JSON path.
    @Test func emptyAndUndecodableSourcesAreRefusedBeforeRendering() throws {
        let fx = try RenderFixture()
        try Data().write(to: URL(fileURLWithPath: fx.path("empty.mp4")))
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.5",
                                                  "-c:v", "ffv1", fx.path("ffv1.mkv")])
        try #require(made.status == 0, "\(made.stderr)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: fx.path("ffv1.mkv")))
        let tag = try #require(bytes.firstRange(of: Data("FFV1".utf8)))
        bytes.replaceSubrange(tag, with: Data("ZQZQ".utf8))
        try bytes.write(to: URL(fileURLWithPath: fx.path("odd.mkv")))
        for (source, reason) in [("empty.mp4", "not readable as media"), ("odd.mkv", "cannot decode its video (codec none, tag 'ZQZQ')")] {
            try fx.session(#"{"video": {"videoSegments": [{"source": "\#(source)"}]}}"#)
            let result = try fx.render()
            #expect(result.status == 2, "\(source): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("reel: error:") }
            #expect(lines.count == 1 && lines[0].contains("video.videoSegments[0].source") && lines[0].contains(reason), "\(lines)")
            #expect(!FileManager.default.fileExists(atPath: fx.path("out.mp4")))
        }
    }
}

@Suite struct ImageRenderTests {
    @Test(arguments: ["out.png", "out.jpg"])
    func imageSessionIsOrientedCroppedScaledAndFiltered(output: String) throws {
        let fx = try RenderFixture("image-\(output)")
        try fx.sample("photo.jpg", ["--size", "160x96", "--pattern", "quadrants"])
        // Quarter turn clockwise → 96×160; keep the middle square; 64×64 out; darker.
        try fx.session(#"{"image": {"source": "photo.jpg", "preferredTransform": [0, 1, -1, 0, 96, 0], "cropRect": [[0, 32], [96, 96]], "renderSize": [64, 64], "filters": [{"type": "brightness", "normalizedIntensity": -1}]}}"#)
        let result = try fx.render("s.json", to: output)
        #expect(result.status == 0, "\(result.stderr)")
        let stream = try #require(try FFprobe.streams(fx.path(output)).first)
        #expect(stream.codecName == (output.hasSuffix("png") ? "png" : "mjpeg"))
        #expect(stream.width == 64 && stream.height == 64)
        let frame = try #require(try DecodedMedia.rgbFrames(fx.path(output), width: 64, height: 64).first)
        for (x0, y0) in [(0, 0), (32, 0), (0, 32), (32, 32)] {
            let color = RenderPictureTests.regionColor(frame, width: 64, x0: x0, y0: y0, x1: x0 + 32, y1: y0 + 32)
            // Brightness −0.18: every channel at most 255·0.82 (+ coding slack).
            #expect(max(color.0, color.1, color.2) < 218)
            let undimmed = (min(255, color.0 + 46), min(255, color.1 + 46), min(255, color.2 + 46))
            let expected = RenderPictureTests.sourceQuadrant(atOriented: Double(x0 + 16) * 1.5, Double(y0 + 16) * 1.5 + 32,
                                                             a: 0, b: 1, c: -1, d: 0, w: 160, h: 96)
            #expect(RenderPictureTests.nearestQuadrantColor(undimmed) == expected)
        }
    }
}
