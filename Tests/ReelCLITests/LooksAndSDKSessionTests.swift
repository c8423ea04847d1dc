import Foundation
import ReelTestSupport
import Testing

/// Sessions as the SDK writes them, named looks and custom filters, through the built `reel`.
@Suite struct LooksAndSDKSessionTests {
    /// Integer sessionID, SDK class names, no frameDuration, segments at 24 and 60 fps, the
    /// first segment cropped, no renderSize: 60 fps at the crop's size, no error.
    @Test func aSessionAsTheSDKWritesItRendersAtTheFastestRateAndTheCropSize() throws {
        let fx = try RenderFixture()
        try fx.sample("a24.mp4", ["--duration", "2", "--size", "320x180", "--fps", "24"])
        try fx.sample("b60.mp4", ["--duration", "1", "--size", "320x180", "--fps", "60"])
        try fx.session("""
        {"sessionID": 42, "video": {"videoSegments": [
          {"source": "a24.mp4", "trimDuration": 1, "cropRect": [[40, 20], [192, 108]],
           "filters": [{"type": "SessionFilterWarmth", "normalizedIntensity": 0.3}]},
          {"source": "b60.mp4", "trimDuration": 0.5, "filters": [{"type": "SessionFilterHighlights", "normalizedIntensity": 40}]}
        ], "primaryFilter": {"type": "SessionFilterMulholland", "normalizedIntensity": 50}}}
        """)
        let result = try fx.render()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("error"), "\(result.stderr)")
        let video = try #require(try FFprobe.streams(fx.path("out.mp4")).first { $0.codecType == "video" })
        #expect(video.width == 192 && video.height == 108)
        #expect(video.averageFrameRate == "60/1")
        #expect(video.frameCount == 90)   // 1 s + 0.5 s at 60 fps
        let sidecar = try String(contentsOfFile: fx.path("out.reel.json"), encoding: .utf8)
        #expect(sidecar.contains(#""sessionID" : 42"#), "the integer id is written back as read")
    }

    @Test func aStandInLookWarnsAndStrictLooksRefusesIt() throws {
        let fx = try RenderFixture()
        try fx.sample("a.mp4", ["--duration", "1", "--size", "160x96", "--no-audio"])
        try fx.session(#"{"video": {"videoSegments": [{"source": "a.mp4"}], "primaryFilter": {"type": "wilshire"}}}"#)
        let lenient = try TestEnvironment.reel(["validate", "s.json"], in: fx.dir)
        #expect(lenient.status == 0)
        #expect(lenient.stderrLines.count == 1)
        #expect(lenient.stderr.hasPrefix("reel: warning: video.primaryFilter.type: 'wilshire' renders with ReelFarm's stand-in image"))
        let strict = try TestEnvironment.reel(["validate", "s.json", "--strict-looks"], in: fx.dir)
        #expect(strict.status == 2)
        #expect(strict.stderrLines.count == 1)
        #expect(strict.stderr.hasPrefix("reel: error: video.primaryFilter.type: 'wilshire' renders with ReelFarm's stand-in image"))
        // A captured look (no stand-in mark) installed under the same name passes --strict-looks.
        let looks = fx.dir.appendingPathComponent("captured")
        try FileManager.default.createDirectory(at: looks, withIntermediateDirectories: true)
        try RGBImage(width: 512, height: 512, bytes: Self.identityLattice()).writePNG(to: looks.appendingPathComponent("wilshire.png").path)
        let captured = try TestEnvironment.reel(["validate", "s.json", "--strict-looks", "--looks", looks.path], in: fx.dir)
        #expect(captured.status == 0 && captured.stderr.isEmpty, "\(captured.stderr)")
        // Without the image, the look is an error naming the file.
        let empty = fx.dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let missing = try TestEnvironment.reel(["validate", "s.json", "--looks", empty.path], in: fx.dir)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("video.primaryFilter.type: 'look:wilshire.png' not found"), "\(missing.stderr)")
    }

    /// GPUImage's identity lattice, written independently of the engine.
    static func identityLattice() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 512 * 512 * 3)
        for py in 0..<512 {
            for px in 0..<512 {
                let i = (py * 512 + px) * 3
                bytes[i] = UInt8((Double(px % 64) * 255 / 63).rounded())
                bytes[i + 1] = UInt8((Double(py % 64) * 255 / 63).rounded())
                bytes[i + 2] = UInt8((Double((py / 64) * 8 + px / 64) * 255 / 63).rounded())
            }
        }
        return bytes
    }

    @Test func badLookFilesAndIntensitiesExitTwoWithThePathAndTheNumbers() throws {
        let fx = try RenderFixture()
        try fx.sample("a.mp4", ["--duration", "1", "--size", "160x96", "--no-audio"])
        try RGBImage(width: 256, height: 256, bytes: [UInt8](repeating: 9, count: 256 * 256 * 3)).writePNG(to: fx.path("small.png"))
        try TestEnvironment.write("LUT_3D_SIZE 2\n0 0 0\n1 1 oops\n", to: "bad.cube", in: fx.dir)
        try fx.session("""
        {"video": {"videoSegments": [{"source": "a.mp4", "filters": [
          {"type": "lookup", "image": "small.png"},
          {"type": "lut", "file": "bad.cube"},
          {"type": "warmth", "normalizedIntensity": 1.5},
          {"type": "vignette", "normalizedIntensity": 120},
          {"type": "lookup"}
        ]}]}}
        """)
        let result = try TestEnvironment.reel(["validate", "s.json"], in: fx.dir)
        #expect(result.status == 2)
        let lines = Set(result.stderrLines)
        #expect(lines.contains("reel: error: video.videoSegments[0].filters[0].image: small.png: a lookup image must be a 512×512 RGB(A) PNG; this is 256×256 rgb24"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("reel: error: video.videoSegments[0].filters[1].file: ") && $0.contains("line 3: expected three numbers") }, "\(lines)")
        #expect(lines.contains("reel: error: video.videoSegments[0].filters[2].normalizedIntensity: 1.5 is outside -1 … 1 for 'warmth'"))
        #expect(lines.contains("reel: error: video.videoSegments[0].filters[3].normalizedIntensity: 120 is outside 0 … 100 for 'vignette'"))
        #expect(lines.contains("reel: error: video.videoSegments[0].filters[4].image: is required for 'lookup'"))
        #expect(result.stderrLines.count == 5)
        let render = try fx.render()
        #expect(render.status == 2 && !FileManager.default.fileExists(atPath: fx.path("out.mp4")))
    }

    @Test func customFiltersComeFromTheLooksDirectory() throws {
        let fx = try RenderFixture()
        try fx.sample("a.mp4", ["--duration", "1", "--size", "160x96", "--no-audio"])
        let looks = fx.dir.appendingPathComponent("mylooks")
        try FileManager.default.createDirectory(at: looks, withIntermediateDirectories: true)
        try RGBImage(width: 512, height: 512, bytes: Self.identityLattice()).writePNG(to: looks.appendingPathComponent("base.png").path)
        try TestEnvironment.write(#"""
        {"type": "crisp", "slider": {"range": [0, 100], "default": 100},
         "stages": [{"operation": "lookup", "image": "base.png", "range": [0, 1]},
                    {"operation": "contrast", "range": [1, 1.5]}]}
        """#, to: "crisp.json", in: looks)
        try TestEnvironment.write(#"{"type": "broken", "slider": {"range": [0, 1]}}"#, to: "broken.json", in: looks)
        try fx.session(#"{"video": {"videoSegments": [{"source": "a.mp4", "filters": [{"type": "crisp", "normalizedIntensity": 70}]}]}}"#)
        let withLooks = try TestEnvironment.reel(["render", "s.json", "-o", "out.mp4", "--looks", looks.path], in: fx.dir)
        #expect(withLooks.status == 0, "\(withLooks.stderr)")
        let without = try TestEnvironment.reel(["validate", "s.json"], in: fx.dir)
        #expect(without.status == 2 && without.stderr.contains("unknown filter type 'crisp'"))
        let outOfRange = #"{"video": {"videoSegments": [{"source": "a.mp4", "filters": [{"type": "crisp", "normalizedIntensity": 101}]}]}}"#
        try fx.session(outOfRange, name: "far.json")
        let far = try TestEnvironment.reel(["validate", "far.json", "--looks", looks.path], in: fx.dir)
        #expect(far.stderr.contains("filters[0].normalizedIntensity: 101 is outside 0 … 100 for 'crisp'"), "\(far.stderr)")
        try fx.session(#"{"video": {"videoSegments": [{"source": "a.mp4", "filters": [{"type": "broken"}]}]}}"#, name: "b.json")
        let broken = try TestEnvironment.reel(["validate", "b.json", "--looks", looks.path], in: fx.dir)
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("video.videoSegments[0].filters[0].type: looks/broken.json: "), "\(broken.stderr)")
        // `reel looks` lists both, the broken one with its problem.
        let listing = try TestEnvironment.reel(["looks", "--looks", looks.path, "--json"], in: fx.dir)
        let json = try #require(try JSONSerialization.jsonObject(with: listing.stdoutData) as? [String: Any])
        let entries = try #require(json["looks"] as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["base", "broken", "crisp"])
        #expect(entries[1]["problem"] as? String != nil && entries[2]["problem"] == nil)
        #expect((json["missingSDKLooks"] as? [String])?.count == 9)
    }

    @Test func theShippedLooksAreTheNineSDKNamesAsStandInsAndReelFarmsOwn() throws {
        let listing = try TestEnvironment.reel(["looks", "--json"])
        #expect(listing.status == 0, "\(listing.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: listing.stdoutData) as? [String: Any])
        let entries = try #require(json["looks"] as? [[String: Any]])
        let standIns = Set(entries.filter { $0["standIn"] as? Bool == true }.compactMap { $0["name"] as? String })
        #expect(standIns == ["wilshire", "montana", "sanVicente", "melrose", "sepulveda", "laCienega", "abbotKinney",
                             "mulholland", "sunset"])
        #expect(entries.allSatisfy { $0["problem"] == nil })
        #expect(Set(entries.compactMap { $0["name"] as? String }).isSuperset(of: ["warm", "mono", "identity", "dreamy"]))
        #expect((json["missingSDKLooks"] as? [String]) == [])
    }

    /// Installed as the images install it — `bin/reel` found on the PATH (argv[0] is then
    /// just "reel"), the looks in `share/reelfarm/looks` — the looks are found from any
    /// working directory.
    @Test func anInstalledReelOnThePathFindsItsShippedLooks() throws {
        let root = try TestEnvironment.scratchDirectory()
        let bin = root.appendingPathComponent("bin"), looks = root.appendingPathComponent("share/reelfarm/looks")
        let elsewhere = root.appendingPathComponent("projects/edits/work")
        for dir in [bin, looks, elsewhere] { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) }
        try FileManager.default.copyItem(atPath: TestEnvironment.reel, toPath: bin.appendingPathComponent("reel").path)
        try FileManager.default.copyItem(at: TestEnvironment.packageRoot.appendingPathComponent("looks/identity.png"),
                                         to: looks.appendingPathComponent("identity.png"))
        let listing = try ProcessRunner.run("/usr/bin/env", ["reel", "looks", "--json"], directory: elsewhere,
                                            environment: ["PATH": "\(bin.path):/usr/bin:/bin"])
        #expect(listing.status == 0, "\(listing.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: listing.stdoutData) as? [String: Any])
        #expect((json["looks"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["identity"])
    }

    /// The stand-ins are made by a script from written-down curves, reproducibly.
    @Test func theLookScriptReproducesTheShippedImages() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let python = try #require(ProcessRunner.which("python3"))
        let script = TestEnvironment.packageRoot.appendingPathComponent("looks/make-looks.py").path
        for name in ["mulholland", "mono"] {
            let r = try ProcessRunner.run(python, [script, dir.path, "--only", name])
            #expect(r.status == 0, "\(r.stderr)")
            let made = try Data(contentsOf: dir.appendingPathComponent("\(name).png"))
            let shipped = try Data(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("looks/\(name).png"))
            #expect(made == shipped, "\(name).png differs from what looks/make-looks.py writes")
        }
    }

    /// `reel thumbnail --filter` takes any type by name, a named look and a custom filter.
    @Test(arguments: ["warmth", "straighten", "sanVicente", "dreamy"])
    func thumbnailsTakeAnyFilterByName(filter: String) throws {
        let fx = try RenderFixture("thumb-\(filter)")
        try fx.sample("a.mp4", ["--duration", "1", "--size", "160x96", "--no-audio"])
        try fx.session(#"{"video": {"videoSegments": [{"source": "a.mp4"}]}}"#)
        let plain = try TestEnvironment.reel(["thumbnail", "s.json", "--segment", "0", "--size", "160x96", "-o", "a.png", "--cache-dir", "c"], in: fx.dir)
        let filtered = try TestEnvironment.reel(["thumbnail", "s.json", "--segment", "0", "--size", "160x96", "-o", "b.png",
                                                 "--cache-dir", "c", "--filter", filter], in: fx.dir)
        #expect(plain.status == 0 && filtered.status == 0, "\(plain.stderr) \(filtered.stderr)")
        let a = try RGBImage.readPNG(fx.path("a.png"), width: 160, height: 96)
        let b = try RGBImage.readPNG(fx.path("b.png"), width: 160, height: 96)
        #expect(Measure.psnr(a.bytes, b.bytes) < 35, "--filter \(filter) changed too little")
    }

    /// `reel filters`: the table in docs/filters.md and the filter schema in
    /// docs/session.schema.json are the catalogue's own output.
    @Test func docsAndSchemaShowTheCatalogue() throws {
        let markdown = try TestEnvironment.reel(["filters", "--markdown"])
        #expect(markdown.status == 0)
        let docs = try String(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("docs/filters.md"), encoding: .utf8)
        #expect(docs.contains(markdown.stdout), "docs/filters.md's table is not `reel filters --markdown`")
        let schema = try TestEnvironment.reel(["filters", "--schema"])
        let generated = try JSONSerialization.jsonObject(with: schema.stdoutData) as? NSDictionary
        let file = try Data(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("docs/session.schema.json"))
        let defs = (try JSONSerialization.jsonObject(with: file) as? [String: Any])?["$defs"] as? [String: Any]
        #expect(generated != nil && generated == defs?["filter"] as? NSDictionary,
                "docs/session.schema.json $defs.filter is not `reel filters --schema`")
    }

    @Test func theContactSheetShowsEveryTypeAtThreeIntensities() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let r = try TestEnvironment.reel(["filters", "--contact-sheet", "sheet.png"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let stream = try #require(try FFprobe.streams(dir.appendingPathComponent("sheet.png").path).first)
        // 42 built-in rows (all 44 types but speed and lut) + the shipped custom filter; 90 + 15 px a row.
        #expect(stream.width == 150 + 4 * 164)
        #expect(stream.height == 43 * 105 + 4)
        let sheet = try RGBImage.readPNG(dir.appendingPathComponent("sheet.png").path, width: 806, height: 43 * 105 + 4)
        func mean(row: Int, column: Int) -> Double {
            var sum = 0.0
            for y in 4..<94 { for x in 0..<160 { let p = sheet[150 + column * 164 + x, row * 105 + y]; sum += Double(p.0) + Double(p.1) + Double(p.2) } }
            return sum / (90 * 160 * 3)
        }
        // Row 0 is brightness: its −1 tile is darker than the original, its +1 tile brighter.
        #expect(mean(row: 0, column: 1) < mean(row: 0, column: 0) - 20 && mean(row: 0, column: 3) > mean(row: 0, column: 0) + 20)
        // Row 38 is edgeDetection (the 14th effect, after 25 other rows): light lines on black.
        #expect(mean(row: 38, column: 3) < mean(row: 38, column: 0) - 40)
        // Row 37 is pinch, row 39 sphereRefraction: black around the ball, so darker still.
        #expect(mean(row: 39, column: 3) < mean(row: 39, column: 0) - 40)
    }
}
