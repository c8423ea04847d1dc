import Foundation
import ReelTestSupport
import Testing

/// docs/api.md, "Dashboard": the page in a real browser (Debian's headless Chromium via
/// chromedriver): a job's progress bar moves during a render, a queued job gets a higher
/// priority and is cancelled from its page, and the screenshot is not blank.
@Suite(.serialized) struct DashboardTests {
    static let token = "dashboard-admin-token-0123456789"

    @Test func aBrowserSeesProgressCancelsAJobAndTheScreenshotIsNotBlank() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 3)
        try TestEnvironment.write("\(Self.token) admin ops\n", to: "tokens", in: farm.dir)
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--api-tokens", "tokens"])
        // One slow slot: the first job renders for a while, the second waits behind it.
        try farm.startWorker("a", ["--test-shard-delay", "1000"])
        let api = try farm.apiBase()
        let auth = ["Authorization": "Bearer \(Self.token)"]
        var files: [String: String] = [:]
        for name in ["a.mp4", "b.mp4"] {
            let sum = try ProcessRunner.run("/usr/bin/sha256sum", [farm.path(name)]).stdout.split(separator: " ").first.map(String.init) ?? ""
            files[name] = "sha256:" + sum
            _ = try HTTPExchange.send("PUT", "\(api)/media/sha256:\(sum)", headers: auth,
                                      body: try Data(contentsOf: URL(fileURLWithPath: farm.path(name))))
        }
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        func submit(priority: Int) throws -> String {
            let body: [String: Any] = ["session": session, "files": files, "priority": priority,
                                       "settings": ["keyframeIntervalSeconds": 0.5]]
            let reply = try HTTPExchange.send("POST", "\(api)/jobs", headers: auth, body: try JSONSerialization.data(withJSONObject: body))
            let id = ((reply.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String
            #expect(id != nil, "\(reply.status) \(reply.text)")
            return id ?? ""
        }
        // The browser first; the jobs once it says it is up (it writes jobs.ready).
        let python = try #require(ProcessRunner.which("python3"))
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: python)
        browser.arguments = [TestEnvironment.packageRoot.appendingPathComponent("Tests/dashboard-check.py").path,
                             String(api.dropLast("/v1".count)), Self.token, farm.path("jobs"), farm.path("dashboard.png")]
        FileManager.default.createFile(atPath: farm.path("browser.log"), contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: farm.path("browser.log")))
        browser.standardOutput = log
        browser.standardError = log
        try browser.run()
        let watchdog = DispatchWorkItem { kill(browser.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 300, execute: watchdog)
        defer { watchdog.cancel(); if browser.isRunning { kill(browser.processIdentifier, SIGKILL) } }
        #expect(try farm.waitUntil(180) { FileManager.default.fileExists(atPath: farm.path("jobs.ready")) || !browser.isRunning },
                "\(farm.log("browser.log"))")
        let running = try submit(priority: 5)
        let queued = try submit(priority: 0)
        try TestEnvironment.write("\(running) \(queued)\n", to: "jobs", in: farm.dir)

        // The API's own rate and ETA while the first job renders.
        let rated = try farm.waitUntil(30) {
            let status = try HTTPExchange.send("GET", "\(api)/jobs/\(running)", headers: auth).json as? [String: Any]
            return ((status?["framesPerSecond"] as? Double) ?? 0) > 0 && status?["etaSeconds"] is Double
        }
        #expect(rated, "no framesPerSecond and etaSeconds while the job rendered")

        browser.waitUntilExit()
        let output = farm.log("browser.log")
        #expect(browser.terminationStatus == 0, "\(output.suffix(1500))")
        #expect(output.contains("progress bar moved"))
        #expect(output.contains("thumbnails: 3 segment pictures"), "\(output)")
        #expect(output.contains("fps on the job's page"), "\(output)")
        #expect(output.contains("no sideways overflow at 390 px and 1280 px"), "\(output)")
        #expect(output.contains("no Content-Security-Policy violation"), "\(output)")
        #expect(output.contains("live preview played to"), "\(output)")
        #expect(output.contains("shard map of the running job"), "\(output)")
        #expect(output.contains("workers page draws"), "\(output)")
        #expect(output.contains("done job: the output played"), "\(output)")
        #expect(FileManager.default.fileExists(atPath: farm.path("dashboard-390.png")))
        // REEL_SCREENSHOTS=docs/images keeps the pictures docs/api.md shows.
        if let keep = ProcessInfo.processInfo.environment["REEL_SCREENSHOTS"] {
            for name in ["dashboard.png", "dashboard-done.png", "dashboard-workers.png", "dashboard-390.png"] {
                let target = URL(fileURLWithPath: keep).appendingPathComponent(name)
                try? FileManager.default.removeItem(at: target)   // replaced by this run's
                try FileManager.default.copyItem(at: URL(fileURLWithPath: farm.path(name)), to: target)
            }
        }
        // The policy allows the page's own script and style by hash, nothing inline besides.
        let page = try HTTPExchange.send("GET", String(api.dropLast("/v1".count)) + "/")
        let policy = page.headers.first { $0.key.lowercased() == "content-security-policy" }?.value ?? ""
        #expect(policy.contains("script-src 'sha256-") && !policy.contains("unsafe-inline"), "\(policy)")
        let status = try HTTPExchange.send("GET", "\(api)/jobs/\(queued)", headers: auth).json as? [String: Any]
        #expect(status?["state"] as? String == "cancelled")
        #expect(status?["priority"] as? Int == 1)

        // Not blank: many grey levels, spread out (a blank or error page has a handful).
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let gray = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", farm.path("dashboard.png"), "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let pixels = [UInt8](gray.stdoutData)
        #expect(pixels.count >= 1280 * 600)
        var histogram = [Int](repeating: 0, count: 256)
        for p in pixels { histogram[Int(p)] += 1 }
        let levels = histogram.filter { $0 > 0 }.count
        let mostCommon = Double(histogram.max() ?? 0) / Double(max(1, pixels.count))
        #expect(levels >= 16, "\(levels) grey levels")
        #expect(mostCommon < 0.97, "one grey covers \(Int(mostCommon * 100)) % of the screenshot")
    }

    /// A signed output URL serves the MP4, ranges included (what a <video src> asks for),
    /// without a token; without the signature, or with the path or lifetime altered, the
    /// same resource is refused.
    @Test func aSignedOutputURLServesRangesWithoutAToken() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 3)
        try TestEnvironment.write("\(Self.token) admin ops\n", to: "tokens", in: farm.dir)
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--api-tokens", "tokens"])
        try farm.startWorker("a")
        let api = try farm.apiBase()
        let base = String(api.dropLast("/v1".count))
        let job = try farm.submit()
        _ = try farm.fetched(job)   // done
        let auth = ["Authorization": "Bearer \(Self.token)"]
        let reply = try HTTPExchange.send("POST", "\(api)/jobs/\(job)/output-url", headers: auth,
                                          body: Data(#"{"seconds": 120}"#.utf8))
        #expect(reply.status == 201, "\(reply.text)")
        let signed = try #require((reply.json as? [String: Any])?["url"] as? String)
        #expect(signed.hasPrefix("/v1/jobs/\(job)/output?") && signed.contains("signature="))
        // Ranges work with the signature alone, as a browser asks for them.
        let range = try HTTPExchange.send("GET", base + signed, headers: ["Range": "bytes=0-99"])
        #expect(range.status == 206 && range.body.count == 100)
        #expect(try HTTPExchange.send("GET", "\(api)/jobs/\(job)/output").status == 401)
        let altered = signed.replacingOccurrences(of: "seconds", with: "x").replacingOccurrences(of: "/output?", with: "/sidecar?")
        #expect(try HTTPExchange.send("GET", base + altered).status == 403)
        let whole = try HTTPExchange.send("GET", base + signed)
        let fetched = try Data(contentsOf: URL(fileURLWithPath: farm.path("out.mp4")))
        #expect(whole.status == 200 && whole.body == fetched)
        // HEAD, as a player or a CDN asks for the size first: the GET's headers, no body.
        let head = try HTTPExchange.send("HEAD", base + signed)
        #expect(head.status == 200 && head.body.isEmpty, "\(head.status) \(head.text)")
        #expect(head.headers["content-length"] == String(fetched.count) && head.headers["accept-ranges"] == "bytes", "\(head.headers)")
        #expect(try HTTPExchange.send("HEAD", base + altered).status == 403)
        let longer = signed.replacingOccurrences(of: "expires=", with: "expires=9")
        #expect(try HTTPExchange.send("GET", base + longer).status == 403)
        // A thumbnail URL for an <img src>.
        let thumb = try HTTPExchange.send("POST", "\(api)/jobs/\(job)/segments/1/thumbnail-url", headers: auth,
                                          body: Data(#"{"size": "160x90", "format": "png"}"#.utf8))
        let picture = try #require((thumb.json as? [String: Any])?["url"] as? String)
        let image = try HTTPExchange.send("GET", base + picture)
        #expect(image.status == 200 && image.body.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(image.status) \(image.text.prefix(200))")
        // A frame URL: the segment as the video shows it, at the render size (160x96).
        let frameURL = try HTTPExchange.send("POST", "\(api)/jobs/\(job)/segments/2/frame-url", headers: auth,
                                             body: Data(#"{"time": 1.5}"#.utf8))
        let frame = try HTTPExchange.send("GET", base + (try #require((frameURL.json as? [String: Any])?["url"] as? String)))
        #expect(frame.status == 200 && frame.headers["content-type"] == "image/jpeg", "\(frame.status) \(frame.text.prefix(200))")
        try frame.body.write(to: URL(fileURLWithPath: farm.path("frame.jpg")))
        let size = try ProcessRunner.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                                                              farm.path("frame.jpg")]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(size == "160,96", "\(size)")
        #expect(try HTTPExchange.send("GET", "\(api)/jobs/\(job)/segments/2/frame?size=5000x10", headers: auth).status == 400)
        let bad = try HTTPExchange.send("POST", "\(api)/jobs/\(job)/output-url", headers: auth, body: Data(#"{"seconds": true}"#.utf8))
        #expect(bad.status == 422)

        // Chromium plays it from the signed URL as a page's <video src> does, and seeks by
        // ranges. The page is one of the API's origin (the video's own document: an
        // about:blank page's opaque origin gets no media in headless Chromium).
        let python = try #require(ProcessRunner.which("python3"))
        let played = try ProcessRunner.run(python, [TestEnvironment.packageRoot.appendingPathComponent("Tests/video-check.py").path,
                                                    base + signed, base + signed, "3.0"], directory: farm.dir, timeout: 120)
        #expect(played.status == 0, "\(played.stdout) \(played.stderr.suffix(800))")
        let seen = (try? JSONSerialization.jsonObject(with: played.stdoutData) as? [String: Any]) ?? [:]
        #expect((seen["advanced"] as? Double ?? 0) > 0.3, "\(seen)")
        #expect(abs((seen["seekedTo"] as? Double ?? 0) - 3.0) < 0.1, "the seek landed at \(seen["seekedTo"] ?? "nothing")")
    }
}
