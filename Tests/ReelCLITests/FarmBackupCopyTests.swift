import Foundation
import ReelTestSupport
import Testing

/// A backup copy among real processes (docs/operations.md, "Scaling"): a worker that
/// holds a shard and says nothing of its pace gets a copy made elsewhere once the shard is
/// past its threshold; the copy's media bytes are counted at the coordinator, for its job
/// and for the worker that fetched them, and the first chunk wins.
@Suite(.serialized) struct FarmBackupCopyTests {
    @Test func aBackupCopysMediaBytesAreCountedForItsJobAndItsWorker() throws {
        let farm = try FarmFixture()
        let sample = try TestEnvironment.reel(["sample", farm.path("a.mp4"), "--duration", "3", "--size", "160x96"])
        #expect(sample.status == 0, "\(sample.stderr)")
        try TestEnvironment.write("""
        {"video": {"renderSize": [160, 96], "videoSegments": [{"source": "a.mp4", "trimDuration": 1}]}}
        """, to: "s.json", in: farm.dir)
        let reference = try farm.reference()
        try farm.startCoordinator(["--trace", farm.path("trace.jsonl")])
        // The straggler: it holds its shard 60 s before it starts (and reads nothing meanwhile).
        try farm.startWorker("stuck", ["--test-shard-delay", "60000"])
        #expect(try farm.waitUntil(30) { (try farm.reel(["workers", "--json"]).stdout.filter { $0 == "{" }.count) == 1 })
        let job = try farm.submit()
        var running = false
        #expect(try farm.waitUntil(30) {
            running = ((try farm.status(job))["shards"] as? [String: Int])?["running"] ?? 0 > 0
            return running
        })
        try farm.startWorker("quick")
        #expect(try farm.fetched(job) == reference)
        let status = try farm.status(job)
        let listed = (try? JSONSerialization.jsonObject(with: try farm.reel(["workers", "--json"]).stdoutData) as? [[String: Any]]) ?? []
        let sent = listed.reduce(into: [String: Int]()) { $0[$1["workerID"] as? String ?? "?"] = $1["mediaBytesSent"] as? Int ?? 0 }
        let done = status["workers"] as? [String: Int] ?? [:]
        let copier = try #require(done.keys.first, "\(status)")
        // The copy read the clip from the coordinator, and the job's count is the workers'.
        let clip = try #require(try FileManager.default.attributesOfItem(atPath: farm.path("a.mp4"))[.size] as? Int)
        #expect((sent[copier] ?? 0) > clip / 4, "\(sent), clip \(clip)")
        #expect(status["mediaBytesSent"] as? Int == sent.values.reduce(0, +), "\(status)\n\(sent)")
        // The trace: a second attempt of a shard won, the first was beaten (or cancelled).
        let attempts = farm.log("trace.jsonl").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["event"] as? String == "attempt" }
        #expect(attempts.contains { $0["attempt"] as? Int == 2 && $0["outcome"] as? String == "done" && $0["worker"] as? String == copier },
                "a copy was made and won: \(attempts)")
    }
}
