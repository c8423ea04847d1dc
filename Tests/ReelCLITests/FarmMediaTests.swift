import Foundation
import ReelTestSupport
import Testing

/// Workers that share no disk with the coordinator fetch only the media their shard
/// reads (docs/operations.md, "Media"), and the coordinator counts what it sent.
@Suite(.serialized) struct FarmMediaTests {
    @Test func eachWorkerFetchesOnlyTheClipOfItsOwnShards() throws {
        let farm = try FarmFixture()
        var hexOf: [String: String] = [:]
        for (name, extra) in [("a.mp4", [String]()), ("b.mp4", ["--rotate", "90"]), ("c.mp4", ["--pattern", "gradient"])] {
            let r = try TestEnvironment.reel(["sample", farm.path(name), "--duration", "1.5", "--size", "160x96", "--no-audio"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            let sum = try ProcessRunner.run("/usr/bin/sha256sum", [farm.path(name)])
            let hex = String(sum.stdout.prefix(64))
            hexOf[name] = hex
        }
        // One shard per segment (keyframes every 2 s, segments of 1 s); no audio to render.
        try TestEnvironment.write("""
        {"video": {"videoSegments": [{"source": "a.mp4", "trimDuration": 1}, {"source": "b.mp4", "trimDuration": 1},
                                     {"source": "c.mp4", "trimDuration": 1}]}}
        """, to: "s.json", in: farm.dir)
        try farm.startCoordinator()
        let log = farm.path("renders.log")
        for name in ["x", "y", "z"] { try farm.startWorker(name, ["--test-render-log", log]) }
        let submitted = try farm.reel(["submit", "s.json", "--keyframe-interval", "2"])
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let job = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let output = try farm.fetched(job)
        let reference = try TestEnvironment.reel(["render", "s.json", "-o", "reference.mp4", "--in-process", "--workers", "1",
                                                  "--keyframe-interval", "2"], in: farm.dir)
        #expect(reference.status == 0)
        #expect(output == (try Data(contentsOf: URL(fileURLWithPath: farm.path("reference.mp4")))))

        // Shard 0 is the audio track (no media: no clip has sound); shard 1 + i renders segment i.
        let clips = ["a.mp4", "b.mp4", "c.mp4"]
        var rendered: [String: Set<String>] = [:]   // worker id → hex ids its shards read
        for line in try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 4, let shard = Int(fields[1]) else { continue }
            rendered[String(fields[3]), default: []].formUnion(shard == 0 ? [] : [hexOf[clips[shard - 1]]!])
        }
        #expect(rendered.values.reduce(0) { $0 + $1.count } >= 3)
        var fetchedBytes = 0
        for (name, process) in farm.workers {
            let workerID = try #require(rendered.keys.first { $0.hasPrefix("w-\(process.processIdentifier)-") } ?? Optional(""))
            // Whole files are `<hex>`, blocks read by ranges `<hex>.b<index>`.
            let entries = try FileManager.default.contentsOfDirectory(atPath: farm.path("cache-\(name)"))
                .filter { $0.count == 64 || $0.dropFirst(64).hasPrefix(".b") }
            let cached = Set(entries.map { String($0.prefix(64)) })
            #expect(cached == (rendered[workerID] ?? []), "worker \(name) fetched \(cached), rendered \(rendered[workerID] ?? [])")
            fetchedBytes += try entries.reduce(0) {
                $0 + (try FileManager.default.attributesOfItem(atPath: farm.path("cache-\(name)/\($1)"))[.size] as? Int ?? 0)
            }
        }
        // The coordinator counted exactly those bytes, for the job and by worker.
        #expect(try farm.status(job)["mediaBytesSent"] as? Int == fetchedBytes)
        let workers = try JSONSerialization.jsonObject(with: farm.reel(["workers", "--json"]).stdoutData) as? [[String: Any]] ?? []
        #expect(workers.reduce(0) { $0 + ($1["mediaBytesSent"] as? Int ?? 0) } == fetchedBytes)
    }
}

/// A long clip split into shards over several workers is read by ranges: no worker
/// fetches the whole file, and what the coordinator sends is close to what the shards'
/// demuxers read.
@Suite(.serialized) struct FarmRangeReadTests {
    @Test func shardsOfOneLongClipFetchOnlyTheRangesTheyRead() throws {
        let farm = try FarmFixture()
        // Noise does not compress: 9 s of it make a file of several MiB, keyframes every second.
        let made = try ProcessRunner.run("/usr/bin/ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=9", "-vf", "noise=alls=60:allf=t",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", farm.path("long.mp4")])
        #expect(made.status == 0, "\(made.stderr)")
        let size = try Data(contentsOf: URL(fileURLWithPath: farm.path("long.mp4"))).count
        #expect(size > 3 << 20, "\(size) bytes")
        try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "long.mp4"}]}}"#, to: "s.json", in: farm.dir)
        try farm.startCoordinator()
        for name in ["x", "y", "z"] { try farm.startWorker(name, ["--test-shard-delay", "200"]) }
        #expect(try farm.waitUntil(20) { farm.log("coordinator.log").components(separatedBy: "joined").count == 4 })
        let submitted = try farm.reel(["submit", "s.json", "--keyframe-interval", "1"])
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let job = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let output = try farm.fetched(job)
        let reference = try TestEnvironment.reel(["render", "s.json", "-o", "reference.mp4", "--in-process", "--workers", "1",
                                                  "--keyframe-interval", "1"], in: farm.dir)
        #expect(reference.status == 0)
        #expect(output == (try Data(contentsOf: URL(fileURLWithPath: farm.path("reference.mp4")))))

        let workers = try JSONSerialization.jsonObject(with: farm.reel(["workers", "--json"]).stdoutData) as? [[String: Any]] ?? []
        let sent = workers.map { $0["mediaBytesSent"] as? Int ?? 0 }
        #expect(sent.filter { $0 > 0 }.count >= 2, "\(sent)")
        for bytes in sent { #expect(bytes < size, "a worker fetched \(bytes) of \(size) bytes") }
        // What the demuxers read, per shard, from the workers' logs ("read B of N blocks").
        var blocksRead = 0
        for name in ["x", "y", "z"] {
            for match in farm.log("worker-\(name).log").matches(of: /read (\d+) of \d+ blocks/) { blocksRead += Int(match.1) ?? 0 }
        }
        let readBytes = blocksRead * (64 << 10)   // the workers' block size (docs/operations.md, "Media")
        #expect(readBytes > 0)
        #expect(Double(sent.reduce(0, +)) <= 1.25 * Double(readBytes), "sent \(sent.reduce(0, +)), shards read \(readBytes)")
    }
}

/// On a shared filesystem a worker reads media in place, and takes the coordinator's
/// content id for a file whose size and time match what the coordinator checked,
/// instead of hashing it again.
@Suite(.serialized) struct FarmSharedMediaTests {
    @Test func aWorkerOnTheCoordinatorsFilesystemDoesNotHashWhatTheCoordinatorChecked() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        try farm.startCoordinator(["--media-root", farm.dir.path])
        try farm.startWorker("a", ["--media-root", farm.dir.path])
        let job = try farm.submit()
        #expect(try farm.fetched(job) == (try farm.reference()))
        let log = farm.log("worker-a.log")
        for clip in ["a.mp4", "b.mp4"] {
            #expect(log.contains("reading \(farm.path(clip)) in place (its size and time match the coordinator's check: not hashed)"),
                    "\(log)")
        }
        #expect(!log.contains("hashed to check it") && !log.contains("fetching"), "\(log)")
        // Nothing was fetched: the coordinator sent no media.
        #expect(try farm.status(job)["mediaBytesSent"] == nil)
    }
}
