import Foundation
import ReelTestSupport
import Testing

/// `reel thumbnail`, `thumbnails` and `frame` on this machine (docs/operations.md, the SDK's
/// requestThumbnail and generateFrame).
@Suite struct StillCommandTests {
    /// Landscape 640x360, portrait (640x360 coded, display matrix 90°: 360x640 on screen),
    /// square 320x320, and a frame-index clip; one segment each.
    private func fixture(_ name: String = #function) throws -> RenderFixture {
        let fx = try RenderFixture(name)
        try fx.sample("land.mp4", ["--duration", "2", "--size", "640x360", "--no-audio", "--pattern", "quadrants"])
        try fx.sample("port.mp4", ["--duration", "2", "--size", "640x360", "--no-audio", "--pattern", "quadrants", "--rotate", "90"])
        try fx.sample("square.mp4", ["--duration", "2", "--size", "320x320", "--no-audio", "--pattern", "quadrants"])
        try fx.sample("index.mp4", ["--duration", "3", "--size", "160x96", "--no-audio", "--pattern", "frame-index"])
        try fx.session("""
        {"video": {"renderSize": [640, 360], "videoSegments": [
          {"source": "land.mp4"}, {"source": "port.mp4", "cropRect": [[0, 100], [360, 202.5]]}, {"source": "square.mp4"},
          {"source": "index.mp4", "trimStartTime": 0.5, "trimDuration": 2}
        ]}}
        """)
        return fx
    }

    private func json(_ result: ProcessResult) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]) ?? [:]
    }

    private func size(_ path: String) throws -> (Int, Int) {
        let video = try #require(try FFprobe.streams(path).first { $0.codecType == "video" })
        return (video.width ?? 0, video.height ?? 0)
    }

    @Test func fitAndFillGiveExactSizesForEveryShape() throws {
        let fx = try fixture()
        // (segment, box, mode, expected): fit scales the oriented picture inside the box,
        // fill covers it (one side may exceed it); sizes round to the nearest pixel.
        let cases: [(Int, String, String, Int, Int)] = [
            (0, "200x200", "fit", 200, 113),    // 640x360 × 0.3125 = 200 x 112.5
            (0, "200x200", "fill", 356, 200),   // × 0.5556 = 355.6 x 200
            (1, "200x200", "fit", 113, 200),    // 360x640 on screen
            (1, "200x200", "fill", 200, 356),
            (2, "200x100", "fit", 100, 100),
            (2, "200x100", "fill", 200, 200),
            (0, "400x400", "fit", 400, 225),
            (2, "37x400", "fit", 37, 37),
        ]
        for (segment, box, mode, w, h) in cases {
            let r = try TestEnvironment.reel(["thumbnail", "s.json", "--segment", String(segment), "--size", box, "--mode", mode,
                                              "-o", "t.jpg", "--json", "--cache-dir", "cache"], in: fx.dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(json(r)["width"] as? Int == w && json(r)["height"] as? Int == h, "segment \(segment) \(box) \(mode)")
            let (fw, fh) = try size(fx.path("t.jpg"))
            #expect(fw == w && fh == h, "segment \(segment) \(box) \(mode): file is \(fw)x\(fh)")
        }
    }

    @Test func thePictureIsOrientedAndTheFrameOnScreen() throws {
        let fx = try fixture()
        // Portrait: the quadrant pattern turned 90° clockwise puts red (top-left) at the top right.
        let r = try TestEnvironment.reel(["thumbnail", "s.json", "--segment", "1", "--size", "200x200", "-o", "p.png", "--cache-dir", "cache"], in: fx.dir)
        #expect(r.status == 0, "\(r.stderr)")
        let rgb = try #require(try DecodedMedia.rgbFrames(fx.path("p.png"), width: 113, height: 200).first)
        let topRight = pixel(rgb, width: 113, x: 90, y: 30), topLeft = pixel(rgb, width: 113, x: 20, y: 30)
        #expect(topRight.0 > 180 && topRight.1 < 80 && topRight.2 < 80, "top right is \(topRight)")
        #expect(topLeft.2 > 180 && topLeft.0 < 80, "top left is \(topLeft) (blue: bottom-left turned)")

        // The frame on screen at 1.5 s of a 30 fps clip is frame 45; default time is the trim start (0.5 s: frame 15).
        for (time, frame) in [("1.5", 45), (nil, 15), ("0.999", 30)] as [(String?, Int)] {
            let args = ["thumbnail", "s.json", "--segment", "3", "--size", "160x96", "-o", "i.jpg", "--cache-dir", "cache"] + (time.map { ["--time", $0] } ?? [])
            let r = try TestEnvironment.reel(args, in: fx.dir)
            #expect(r.status == 0, "\(r.stderr)")
            let picture = try #require(try DecodedMedia.rgbFrames(fx.path("i.jpg"), width: 160, height: 96).first)
            #expect(nearestFrame(mean(picture), around: frame) == frame, "at \(time ?? "default")")
        }
    }

    @Test func filtersOnlyWhenAsked() throws {
        let fx = try fixture()
        let plain = try TestEnvironment.reel(["thumbnail", "s.json", "--segment", "3", "--time", "1.5", "--size", "160x96", "-o", "a.jpg", "--cache-dir", "cache"], in: fx.dir)
        let lit = try TestEnvironment.reel(["thumbnail", "s.json", "--segment", "3", "--time", "1.5", "--size", "160x96", "-o", "b.jpg", "--cache-dir", "cache",
                                            "--filter", #"{"type": "brightness", "normalizedIntensity": 1}"#], in: fx.dir)
        #expect(plain.status == 0 && lit.status == 0, "\(plain.stderr) \(lit.stderr)")
        let a = mean(try #require(try DecodedMedia.rgbFrames(fx.path("a.jpg"), width: 160, height: 96).first))
        let b = mean(try #require(try DecodedMedia.rgbFrames(fx.path("b.jpg"), width: 160, height: 96).first))
        let expected = frameRGB(45)
        for c in 0..<3 {
            #expect(abs(a[c] - expected[c]) < 6, "unfiltered channel \(c): \(a[c]) vs \(expected[c])")
            // brightness 1 → +0.18 (docs/filters.md): +45.9 code values, clamped at 255.
            #expect(abs(b[c] - min(255, expected[c] + 45.9)) < 6, "brightened channel \(c): \(b[c])")
        }
        // The session's own filters never reach a thumbnail or a frame.
        try fx.session(#"{"video": {"filters": [{"type": "brightness", "normalizedIntensity": 1}], "videoSegments": [{"source": "index.mp4", "filters": [{"type": "contrast", "normalizedIntensity": 1}]}]}}"#, name: "f.json")
        let r = try TestEnvironment.reel(["frame", "f.json", "--segment", "0", "--time", "1.5", "--max-size", "160x96", "-o", "c.png", "--cache-dir", "cache"], in: fx.dir)
        #expect(r.status == 0, "\(r.stderr)")
        let c = mean(try #require(try DecodedMedia.rgbFrames(fx.path("c.png"), width: 160, height: 96).first))
        for i in 0..<3 { #expect(abs(c[i] - expected[i]) < 4, "frame channel \(i): \(c[i]) vs \(expected[i])") }
    }

    @Test func framesUseActualSizeOrTheCropAndRenderSize() throws {
        let fx = try fixture()
        let cases: [([String], Int, Int)] = [
            (["--segment", "1", "--time", "1"], 360, 640),                                // actualSize of the portrait clip
            (["--segment", "1", "--time", "1", "--cropped"], 640, 360),                   // renderSize
            (["--segment", "1", "--time", "1", "--cropped", "--max-size", "320x320"], 320, 180),
            (["--segment", "0", "--time", "2", "--max-size", "100x100"], 100, 56),       // at the very end: the last frame
            (["--segment", "0", "--time", "0", "--max-size", "1000x1000"], 640, 360),    // never enlarged
        ]
        for (args, w, h) in cases {
            let r = try TestEnvironment.reel(["frame", "s.json", "-o", "f.png", "--json", "--cache-dir", "cache"] + args, in: fx.dir)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            let (fw, fh) = try size(fx.path("f.png"))
            #expect(fw == w && fh == h, "\(args): \(fw)x\(fh)")
        }
    }

    @Test func badRequestsExitTwoWithOneLineAndWriteNothing() throws {
        let fx = try fixture()
        let cases: [([String], String)] = [
            (["thumbnail", "s.json", "--segment", "0", "--size", "401x200", "-o", "x.jpg"], "1x1 … 400x400"),
            (["thumbnail", "s.json", "--segment", "9", "--size", "100x100", "-o", "x.jpg"], "--segment 9: the session has 4 segment(s)"),
            (["thumbnail", "s.json", "--segment", "0", "--size", "100x100", "--time", "2.5", "-o", "x.jpg"], "--time 2.5 s is outside"),
            (["thumbnail", "s.json", "--segment", "0", "--size", "100x100", "--filter", "sepia", "-o", "x.jpg"], "unknown filter type"),
            (["thumbnail", "s.json", "--segment", "0", "--size", "100x100", "--filter", #"{"type":"contrast","normalizedIntensity":3}"#, "-o", "x.jpg"], "--filter.normalizedIntensity: 3"),
            (["thumbnails", "s.json", "--segment", "0", "--size", "100x100", "--count", "0", "-o", "x"], "--count 0"),
            (["frame", "s.json", "--segment", "0", "--time=-1", "-o", "x.png"], "--time -1"),
        ]
        for (args, message) in cases {
            let r = try TestEnvironment.reel(args + ["--cache-dir", "cache"], in: fx.dir)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: fx.path("x.jpg")) && !FileManager.default.fileExists(atPath: fx.path("x.png")))
    }

    @Test func cacheHitsWithoutDecodingSurvivesRestartsAndInvalidates() throws {
        let fx = try fixture()
        let log = fx.path("decodes.log")
        func thumb(_ extra: [String] = []) throws -> [String: Any] {
            let r = try TestEnvironment.reel(["thumbnail", "s.json", "--segment", "3", "--size", "120x120", "-o", "t.jpg", "--json",
                                              "--cache-dir", "cache", "--test-render-log", log] + extra, in: fx.dir)
            #expect(r.status == 0, "\(r.stderr)")
            return json(r)
        }
        func decodes() -> Int { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").count }
        #expect(try thumb()["cached"] as? Bool == false)
        #expect(decodes() == 1)
        // Every run is a new process: the cache is on disk.
        #expect(try thumb()["cached"] as? Bool == true)
        #expect(try thumb()["cached"] as? Bool == true)
        #expect(decodes() == 1)
        // Another time, size, mode or filter is another picture.
        #expect(try thumb(["--mode", "fill"])["cached"] as? Bool == false)
        #expect(try thumb(["--filter", "saturation"])["cached"] as? Bool == false)
        #expect(decodes() == 3)
        // Invalidating another segment keeps these; invalidating this one clears them.
        #expect(try TestEnvironment.reel(["thumbnail", "s.json", "--segment", "0", "--invalidate", "--cache-dir", "cache"], in: fx.dir).status == 0)
        #expect(try thumb()["cached"] as? Bool == true)
        let cleared = try TestEnvironment.reel(["thumbnail", "s.json", "--segment", "3", "--invalidate", "--cache-dir", "cache"], in: fx.dir)
        #expect(cleared.stdout.contains("removed 3 cached picture(s)"), "\(cleared.stdout)")
        #expect(try thumb()["cached"] as? Bool == false)
        #expect(decodes() == 4)
    }

    @Test func filmstripIsEvenlySpacedOverTheTrim() throws {
        let fx = try fixture()
        let r = try TestEnvironment.reel(["thumbnails", "s.json", "--segment", "3", "--count", "4", "--size", "160x96", "-o", "strip",
                                          "--json", "--cache-dir", "cache"], in: fx.dir)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = (try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]]) ?? []
        #expect(lines.count == 4)
        // Trim 0.5 s + 2 s at 30 fps, 4 pictures: 0.5, 1.0, 1.5, 2.0 s → frames 15, 30, 45, 60.
        var frames: [Int] = []
        for i in 0..<4 {
            let picture = try #require(try DecodedMedia.rgbFrames(fx.path("strip/thumb-00\(i).jpg"), width: 160, height: 96).first)
            frames.append(nearestFrame(mean(picture), around: [15, 30, 45, 60][i]))
        }
        #expect(frames == [15, 30, 45, 60])
    }

    // MARK: Reading pictures

    private func pixel(_ rgb: [UInt8], width: Int, x: Int, y: Int) -> (Int, Int, Int) {
        let i = (y * width + x) * 3
        return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
    }

    private func mean(_ rgb: [UInt8]) -> [Double] {
        var sums = [0.0, 0.0, 0.0]
        for (i, v) in rgb.enumerated() { sums[i % 3] += Double(v) }
        return sums.map { $0 / Double(rgb.count / 3) }
    }
}

/// The RGB of frame `i` of `reel sample --pattern frame-index`: Y = 40 + 18·(i mod 10),
/// U = 64 + 16·(⌊i/10⌋ mod 8), V = 64 + 16·(⌊i/80⌋ mod 8), BT.709 limited range.
func frameRGB(_ i: Int) -> [Double] {
    let y = Double(40 + (i % 10) * 18) - 16, u = Double(64 + ((i / 10) % 8) * 16) - 128, v = Double(64 + ((i / 80) % 8) * 16) - 128
    let r = 1.164 * y + 1.793 * v, g = 1.164 * y - 0.213 * u - 0.533 * v, b = 1.164 * y + 2.112 * u
    return [r, g, b].map { min(255, max(0, $0)) }
}

/// The frame-index frame whose colour is closest to `rgb`, among the frames around
/// `expected` (RGB clipping makes some far-apart frames look alike).
func nearestFrame(_ rgb: [Double], around expected: Int) -> Int {
    (max(0, expected - 5)...(expected + 5)).min { a, b in
        zip(frameRGB(a), rgb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) < zip(frameRGB(b), rgb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
    } ?? -1
}

/// Pictures at a time from an open clip (docs/rendering.md, "Pictures at a time"): a
/// frame-index clip with B-frames (a reference B in each mini-GOP) and a keyframe every
/// second, pictured forwards and backwards, exactly and with tolerances.
@Suite struct StillTimeTests {
    private func fixture(_ name: String = #function) throws -> RenderFixture {
        let fx = try RenderFixture(name)
        try fx.sample("plain.mp4", ["--duration", "4", "--size", "160x96", "--no-audio", "--pattern", "frame-index"])
        let encoded = try ProcessRunner.run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", "plain.mp4", "-c:v", "libx264", "-crf", "12",
                                                               "-g", "30", "-bf", "3", "-x264-params", "b-adapt=0:scenecut=0:b-pyramid=normal",
                                                               "-pix_fmt", "yuv420p", "gop.mp4"], directory: fx.dir)
        #expect(encoded.status == 0, "\(encoded.stderr)")
        try fx.session(#"{"video": {"renderSize": [160, 96], "videoSegments": [{"source": "gop.mp4"}]}}"#)
        return fx
    }

    private func frame(of path: String) throws -> [Double] {
        let rgb = try #require(try DecodedMedia.rgbFrames(path, width: 160, height: 96).first)
        var sums = [0.0, 0.0, 0.0]
        for (i, v) in rgb.enumerated() { sums[i % 3] += Double(v) }
        return sums.map { $0 / Double(rgb.count / 3) }
    }

    @Test func everyTimeShowsTheFrameOnScreenWhateverTheOrder() throws {
        let fx = try fixture()
        // One process, so the clip stays open: forwards within a GOP, across GOPs, then back.
        let strip = try TestEnvironment.reel(["thumbnails", "s.json", "--segment", "0", "--count", "40", "--tolerance", "0",
                                              "--size", "160x96", "-o", "strip", "--json", "--cache-dir", "cache"], in: fx.dir)
        #expect(strip.status == 0, "\(strip.stderr)")
        let lines = try #require(try JSONSerialization.jsonObject(with: strip.stdoutData) as? [[String: Any]])
        #expect(lines.count == 40)
        for (i, line) in lines.enumerated() {
            let expected = (i * 30 * 4) / 40   // time i·0.1 s at 30 fps
            #expect(abs((line["time"] as? Double ?? -1) - Double(expected) / 30) < 1e-6, "picture \(i)")
            let path = try #require(line["path"] as? String)
            #expect(nearestFrame(try frame(of: path), around: expected) == expected, "picture \(i) at \(Double(i) / 10) s")
        }
        // Backwards and around, each a new process but the same decoding.
        for t in [3.9, 0.05, 2.999, 1.034, 1.0] {
            let r = try TestEnvironment.reel(["frame", "s.json", "--segment", "0", "--time", String(t), "-o", "f.png", "--json",
                                              "--cache-dir", "cache"], in: fx.dir)
            #expect(r.status == 0, "\(r.stderr)")
            let expected = Int((t + 0.001) * 30)
            #expect(nearestFrame(try frame(of: fx.path("f.png")), around: expected) == expected, "at \(t) s")
        }
    }

    @Test func aToleranceShowsTheNearestKeyframeAndNeverAnswersAnExactRequest() throws {
        let fx = try fixture()
        func thumb(_ time: Double, _ tolerance: Double?) throws -> (time: Double, frame: Int, cached: Bool) {
            let r = try TestEnvironment.reel(["thumbnail", "s.json", "--segment", "0", "--time", String(time), "--size", "160x96",
                                              "-o", "t.png", "--json", "--cache-dir", "cache"] + (tolerance.map { ["--tolerance", String($0)] } ?? []),
                                             in: fx.dir)
            #expect(r.status == 0, "\(r.stderr)")
            let reply = (try? JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]) ?? [:]
            let shown = reply["time"] as? Double ?? -1
            let frame = nearestFrame(try frame(of: fx.path("t.png")), around: Int((shown * 30).rounded()))
            return (shown, frame, reply["cached"] as? Bool ?? true)
        }
        // Keyframes at 0, 1, 2 and 3 s (frames 0, 30, 60, 90).
        let cases: [(Double, Double?, Double, Int)] = [
            (1.4, 0.5, 1.0, 30),    // 1.0 is 0.4 away, 2.0 is beyond
            (1.6, 0.5, 2.0, 60),
            (1.5, 0.5, 1.0, 30),    // as near as 2.0: the earlier
            (1.5, 0.2, 1.5, 45),    // none within: the exact frame
            (1.4, nil, 1.4, 42),    // exact, not the tolerant picture cached for 1.4
        ]
        for (time, tolerance, shown, frame) in cases {
            let picture = try thumb(time, tolerance)
            #expect(abs(picture.time - shown) < 1e-6 && picture.frame == frame, "\(time) ± \(tolerance ?? 0): \(picture)")
            #expect(!picture.cached, "\(time) ± \(tolerance ?? 0) was served from another request's picture")
        }
        let again = try thumb(1.4, 0.5)
        #expect(again.cached && abs(again.time - 1.0) < 1e-6, "a cached tolerant picture says the time it shows: \(again)")

        let bad = try TestEnvironment.reel(["thumbnail", "s.json", "--segment", "0", "--size", "160x96", "--tolerance", "-1", "-o", "x.jpg"],
                                           in: fx.dir)
        #expect(bad.status == 2 && bad.stderr.contains("--tolerance") && !FileManager.default.fileExists(atPath: fx.path("x.jpg")))
    }

    @Test func aFilmstripsPicturesAreTheBytesOfSinglePictures() throws {
        let fx = try fixture()
        // Drawn on every core in one request (default tolerance: half the spacing), then one
        // by one in new processes with the same times and tolerance, in other caches.
        let strip = try TestEnvironment.reel(["thumbnails", "s.json", "--segment", "0", "--count", "6", "--size", "120x72",
                                              "-o", "strip", "--json", "--cache-dir", "a"], in: fx.dir)
        #expect(strip.status == 0, "\(strip.stderr)")
        let lines = try #require(try JSONSerialization.jsonObject(with: strip.stdoutData) as? [[String: Any]])
        #expect(lines.count == 6)
        for (i, line) in lines.enumerated() {
            let time = Double(i) * 4 / 6, tolerance = 4.0 / 12
            let one = try TestEnvironment.reel(["thumbnail", "s.json", "--segment", "0", "--time", String(time), "--tolerance", String(tolerance),
                                                "--size", "120x72", "-o", "one.jpg", "--json", "--cache-dir", "b\(i)"], in: fx.dir)
            #expect(one.status == 0, "\(one.stderr)")
            let reply = (try? JSONSerialization.jsonObject(with: one.stdoutData) as? [String: Any]) ?? [:]
            #expect(abs((reply["time"] as? Double ?? -1) - (line["time"] as? Double ?? -2)) < 1e-9, "picture \(i)")
            let path = try #require(line["path"] as? String)
            #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: fx.path("one.jpg")), "picture \(i)")
        }
    }
}
