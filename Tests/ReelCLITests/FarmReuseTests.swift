import Foundation
import ReelTestSupport
import Testing

/// The coordinator keeps finished chunks by their recipe (docs/rendering.md, "Reusing
/// chunks"): after an edit of one segment only that segment's shards render again, and
/// the result is the full render's, byte for byte.
@Suite(.serialized) struct FarmReuseTests {
    @Test func anEditOfOneSegmentRendersOnlyItsShards() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        try farm.startCoordinator()
        let log = farm.path("renders.log")
        try farm.startWorker("a", ["--test-render-log", log])
        let first = try farm.submit()
        _ = try farm.fetched(first, "first.mp4")
        let shards = (try farm.status(first)["shards"] as? [String: Int])?.values.reduce(0, +) ?? 0
        #expect(renders(in: log, job: first).count == shards)

        // The last segment gets a filter; nothing else changes.
        let session = try String(contentsOfFile: farm.path("s.json"), encoding: .utf8)
        let edited = session.replacingOccurrences(of: #""speedMultiplier": 2, "trimStartTime": 0.5"#,
                                                  with: #""speedMultiplier": 2, "filters": [{"type": "brightness", "normalizedIntensity": 0.5}], "trimStartTime": 0.5"#)
        #expect(edited != session)
        try TestEnvironment.write(edited, to: "s.json", in: farm.dir)
        let submitted = try farm.reel(["submit", "s.json"] + FarmFixture.shortGOP)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let second = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let output = try farm.fetched(second, "second.mp4")
        #expect(output == (try farm.reference()))
        #expect(output != (try Data(contentsOf: URL(fileURLWithPath: farm.path("first.mp4")))))
        // Only the last segment's shards rendered (the audio track, shard 0, was reused too).
        let rendered = renders(in: log, job: second)
        let reused = submitted.stderr.firstMatch(of: /reused (\d+) of (\d+) shards/).flatMap { Int($0.1) } ?? 0
        #expect(reused > 0 && rendered.count == shards - reused, "\(submitted.stderr) rendered \(rendered.sorted())")
        #expect(!rendered.isEmpty && rendered == Set((shards - rendered.count)..<shards), "\(rendered.sorted())")
        #expect(try farm.status(second)["workers"] as? [String: Int] != nil)

        // The same session again: nothing renders, and the file is the same.
        let third = try farm.submit()
        #expect(try farm.fetched(third, "third.mp4") == output)
        #expect(renders(in: log, job: third).isEmpty)
    }

    /// Shards of `job` that a worker rendered, from the workers' render log.
    private func renders(in log: String, job: String) -> Set<Int> {
        let lines = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return Set(lines.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count == 4 && fields[0] == job ? Int(fields[1]) : nil
        })
    }
}
