import Foundation
import ReelTestSupport
import Testing

/// docs/api.md, "Live preview": while a job is half done (its one worker stopped), the
/// signed playlist lists the finished segments and plays the output's first frames; after
/// the end it is ended and plays all of them. Tenants, tokens and expiry are refused as
/// for the output.
@Suite struct LivePreviewFarmTests {
    @Test func aHalfDoneJobsPreviewPlaysTheOutputsFirstFrames() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 3)
        let alice = "alice-preview-token-0123456789ab", bob = "bob-preview-token-0123456789abcd"
        try TestEnvironment.write("\(alice) client alice\n\(bob) client bob\n", to: "tokens", in: farm.dir)
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--api-tokens", "tokens"])
        try farm.startWorker("held", ["--test-shard-delay", "150"])
        let api = try farm.apiBase()
        let base = String(api.dropLast("/v1".count))
        let files = try farm.uploadMedia(to: api, token: alice)
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let body = try JSONSerialization.data(withJSONObject: ["session": session, "files": files,
                                                               "settings": ["keyframeIntervalSeconds": 0.5]])
        let auth = ["Authorization": "Bearer \(alice)"]
        let created = try HTTPExchange.send("POST", "\(api)/jobs", headers: auth, body: body)
        let job = try #require(((created.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String, "\(created.text)")

        // Held once two segments are published: the job stays half done.
        let index = farm.stateDir.appendingPathComponent("previews/\(job)/index.json")
        func published() -> Int {
            let object = (try? JSONSerialization.jsonObject(with: Data(contentsOf: index))) as? [String: Any]
            return (object?["segments"] as? [Any])?.count ?? 0
        }
        #expect(try farm.waitUntil(60) { published() >= 2 }, "\(farm.log("coordinator.log").suffix(1500))")
        let worker = try #require(farm.workers["held"])
        kill(worker.processIdentifier, SIGSTOP)
        defer { kill(worker.processIdentifier, SIGCONT) }
        let state = try farm.status(job)["state"] as? String
        #expect(state == "rendering", "the job was \(state ?? "?") when its worker was held: make it longer")

        // The signed playlist, with no token.
        let signing = try HTTPExchange.send("POST", "\(api)/jobs/\(job)/preview-url", headers: auth, body: Data(#"{"seconds": 300}"#.utf8))
        #expect(signing.status == 201, "\(signing.text)")
        let signed = try #require((signing.json as? [String: Any])?["url"] as? String)
        #expect(signed.hasPrefix("/v1/jobs/\(job)/preview.m3u8?") && signed.contains("signature="))
        let playlist = try HTTPExchange.send("GET", base + signed)
        #expect(playlist.status == 200 && playlist.headers["content-type"] == "application/vnd.apple.mpegurl", "\(playlist.status) \(playlist.text)")
        #expect(!playlist.text.contains("#EXT-X-ENDLIST") && playlist.text.contains("#EXT-X-PLAYLIST-TYPE:EVENT"), "\(playlist.text)")
        // The command line asks the API for the same kind of URL.
        let printed = try farm.reel(["watch", job, "--preview-url", "--api", api, "--api-token", alice])
        let printedURL = printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(printed.status == 0 && printedURL.hasPrefix("\(base)/v1/jobs/\(job)/preview.m3u8?"), "\(printed.stdout) \(printed.stderr)")
        #expect(try HTTPExchange.send("GET", printedURL).status == 200)
        let refused = try farm.reel(["watch", job, "--preview-url", "--api", api, "--api-token", bob])
        #expect(refused.status != 0 && refused.stderr.contains("404"), "\(refused.stderr)")
        let listed = playlist.text.split(separator: "\n").filter { $0.hasPrefix("preview/") && $0.contains(".m4s?") }
        #expect(listed.count >= 2, "\(playlist.text)")

        // ffprobe lists the segments; ffmpeg decodes them, and they are the output's first frames.
        let ffprobe = try #require(ProcessRunner.which("ffprobe"))
        let probed = try ProcessRunner.run(ffprobe, ["-v", "error", "-live_start_index", "0", "-m3u8_hold_counters", "2",
                                                     "-show_entries", "stream=codec_name", "-of", "csv=p=0", base + signed], timeout: 60)
        #expect(probed.status == 0 && probed.stdout.contains("h264") && probed.stdout.contains("aac"), "\(probed.stdout) \(probed.stderr)")
        let half = try Self.pictures(base + signed)
        // Exactly the frames of the segments listed: their durations at the output's rate.
        let seconds = playlist.text.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
            .compactMap { Double($0.dropFirst("#EXTINF:".count).prefix { $0 != "," }) }.reduce(0, +)
        #expect(seconds > 0 && abs(Double(half.count) - seconds * 30) < 0.5, "\(half.count) frames for \(seconds) s at 30 fps")

        // Tokens, tenants and expiry as for the output.
        #expect(try HTTPExchange.send("GET", "\(api)/jobs/\(job)/preview.m3u8").status == 401)
        #expect(try HTTPExchange.send("GET", "\(api)/jobs/\(job)/preview.m3u8", headers: ["Authorization": "Bearer \(bob)"]).status == 404)
        #expect(try HTTPExchange.send("GET", "\(api)/jobs/\(job)/preview/0.m4s", headers: ["Authorization": "Bearer \(bob)"]).status == 404)
        #expect(try HTTPExchange.send("POST", "\(api)/jobs/\(job)/preview-url", headers: ["Authorization": "Bearer \(bob)"]).status == 404)
        let tokenRead = try HTTPExchange.send("GET", "\(api)/jobs/\(job)/preview/0.m4s", headers: auth)
        #expect(tokenRead.status == 200 && tokenRead.body.count > 0)
        let segmentURL = base + "/v1/jobs/\(job)/" + String(try #require(listed.first))
        #expect(try HTTPExchange.send("GET", segmentURL).body == tokenRead.body)
        // A segment's signature is its own: another segment's name, a later expiry, or a
        // segment past those published are refused.
        #expect(try HTTPExchange.send("GET", segmentURL.replacingOccurrences(of: "/0.m4s?", with: "/1.m4s?")).status == 403)
        #expect(try HTTPExchange.send("GET", segmentURL.replacingOccurrences(of: "expires=", with: "expires=9")).status == 403)
        #expect(try HTTPExchange.send("GET", "\(api)/jobs/\(job)/preview/900.m4s", headers: auth).status == 404)
        let expired = try HTTPExchange.send("POST", "\(api)/jobs/\(job)/preview-url", headers: auth, body: Data(#"{"seconds": 1}"#.utf8))
        let shortLived = try #require((expired.json as? [String: Any])?["url"] as? String)
        let expiry = try #require(Int(shortLived.components(separatedBy: "expires=").last?.prefix { $0.isNumber } ?? ""))
        #expect(try farm.waitUntil(5) { Date().timeIntervalSince1970 > Double(expiry) })
        #expect(try HTTPExchange.send("GET", base + shortLived).status == 403)

        // Let go: the job ends, the playlist is ended and plays every frame of the output.
        kill(worker.processIdentifier, SIGCONT)
        _ = try farm.fetched(job)
        let finalPictures = try Self.pictures(farm.path("out.mp4"))
        #expect(half.count >= 2 && half.count < finalPictures.count)
        #expect(half == Array(finalPictures.prefix(half.count)), "the preview's frames are not the output's first frames")
        // The preview's last segment is written just after the job's end is answered.
        let ended = try farm.waitUntil(10) { try HTTPExchange.send("GET", base + signed).text.hasSuffix("#EXT-X-ENDLIST\n") }
        #expect(ended, "the playlist never ended")
        #expect(try Self.pictures(base + signed) == finalPictures)
        // The preview goes with the job's result.
        let deleted = try farm.reel(["fetch", job, "-o", "again.mp4", "--delete"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: index.deletingLastPathComponent().path))
        #expect(try HTTPExchange.send("GET", base + signed).status == 410)
    }

    /// Each decoded picture's checksum (framemd5): equal lists are the same pictures, which
    /// is more than the 45 dB asked.
    static func pictures(_ source: String) throws -> [String] {
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let live = source.contains(".m3u8") ? ["-live_start_index", "0", "-m3u8_hold_counters", "2"] : []
        let run = try ProcessRunner.run(ffmpeg, ["-v", "error"] + live + ["-i", source, "-map", "0:v", "-f", "framemd5", "-"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: ",")
            return fields.count > 5 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
        }
    }
}
