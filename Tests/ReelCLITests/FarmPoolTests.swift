import Foundation
import ReelTestSupport
import Testing

/// Pools and sick workers on a farm of real processes (docs/operations.md, "Pools" and
/// "Sick workers"): jobs never leave their pool and wait, saying why, for a worker of it;
/// a worker that fails every shard is quarantined, shown so, and released by an operator,
/// and the job still ends byte-identical to a clean render.
@Suite(.serialized) struct FarmPoolTests {
    private static func workers(_ farm: FarmFixture) throws -> [[String: Any]] {
        let listed = try farm.reel(["workers", "--json"])
        return (try? JSONSerialization.jsonObject(with: listed.stdoutData) as? [[String: Any]]) ?? []
    }

    /// The worker ids serving `pool` (`nil`: those of no pool).
    private static func ids(in pool: String?, _ listed: [[String: Any]]) -> Set<String> {
        Set(listed.filter { ($0["pools"] as? [String])?.contains(pool ?? "") ?? (pool == nil) }.compactMap { $0["workerID"] as? String })
    }

    @Test func twoPoolsNeverCrossAndAJobWaitsForItsPoolThenStartsWhenAWorkerOfItJoins() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        let reference = try farm.reference()
        try farm.startCoordinator()
        try farm.startWorker("big", ["--pool", "4k", "--pool", "hevc"])
        try farm.startWorker("plain")
        #expect(try farm.waitUntil(30) { try Self.workers(farm).count == 2 })
        let listed = try Self.workers(farm)
        let big = Self.ids(in: "4k", listed), plain = Self.ids(in: nil, listed)
        #expect(big.count == 1 && plain.count == 1, "\(listed)")
        #expect(listed.contains { ($0["pools"] as? [String]) == ["4k", "hevc"] && $0["state"] as? String == "ready" }, "\(listed)")

        let uhd = try farm.submit(["--pool", "4k"])
        // Another encoding, so the sd job renders rather than taking the 4k job's chunks.
        let sd = try farm.submit(["--pool", "sd", "--crf", "30"])
        #expect(try farm.fetched(uhd, "uhd.mp4") == reference)
        let uhdStatus = try farm.status(uhd)
        #expect(Set((uhdStatus["workers"] as? [String: Int] ?? [:]).keys) == big, "only the pool's worker rendered it: \(uhdStatus)")

        // The sd job waits, and says why, for as long as its pool has no worker.
        var waiting: [String: Any] = [:]
        #expect(try farm.waitUntil(20) {
            waiting = try farm.status(sd)
            return ((waiting["paused"] as? [String: Any])?["causes"] as? [String])?.contains("noWorker") == true
        }, "\(waiting)")
        #expect((waiting["paused"] as? [String: Any])?["message"] as? String == "no worker in pool sd", "\(waiting)")
        #expect(waiting["state"] as? String == "queued" && waiting["pool"] as? String == "sd", "\(waiting)")

        try farm.startWorker("small", ["--pool", "sd"])
        #expect(try !farm.fetched(sd, "sd.mp4").isEmpty)
        let small = Self.ids(in: "sd", try Self.workers(farm))
        let sdStatus = try farm.status(sd)
        #expect(Set((sdStatus["workers"] as? [String: Int] ?? [:]).keys) == small, "\(sdStatus)")
        #expect(sdStatus["paused"] == nil && sdStatus["state"] as? String == "done", "\(sdStatus)")

        let bad = try farm.reel(["submit", "s.json", "--pool", "Big Machines"])
        #expect(bad.status == 2 && bad.stderr.contains("--pool") && bad.stderr.contains("not a pool name"), "\(bad.stderr)")
    }

    /// A worker that fails every shard (a test hook) beside a sound one: the sick one is
    /// quarantined at its third failure and shown so, the job ends identical to a clean
    /// render without it, and an operator's `reel workers --release` lifts the quarantine.
    @Test func aWorkerThatFailsEveryShardIsQuarantinedShownAndReleased() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        let reference = try farm.reference()
        try farm.startCoordinator()
        try farm.startWorker("sick", ["--slots", "2", "--test-fail-always"])
        // The sound worker holds each shard a second, so the sick one meets several.
        try farm.startWorker("well", ["--test-shard-delay", "1000"])
        #expect(try farm.waitUntil(30) { try Self.workers(farm).count == 2 })
        let sickID = try #require(try Self.workers(farm).first { ($0["slots"] as? Int) == 2 }?["workerID"] as? String)
        let job = try farm.submit()
        #expect(try farm.fetched(job) == reference)
        let sick = try Self.workers(farm).first { $0["workerID"] as? String == sickID } ?? [:]
        #expect(sick["state"] as? String == "quarantined", "\(sick)\n\(farm.log("coordinator.log").suffix(2000))")
        #expect((sick["quarantineReason"] as? String)?.isEmpty == false && (sick["quarantinedUntil"] as? Double ?? 0) > Date().timeIntervalSince1970)
        let done = try farm.status(job)
        #expect(done["state"] as? String == "done" && (done["workers"] as? [String: Int])?[sickID] == nil, "\(done)")
        let text = try farm.reel(["workers"])
        #expect(text.stdout.contains(sickID) && text.stdout.contains("quarantined"), "\(text.stdout)")

        let released = try farm.reel(["workers", "--release", sickID, "--json"])
        #expect(released.status == 0, "\(released.stderr)")
        let after = (try? JSONSerialization.jsonObject(with: released.stdoutData) as? [[String: Any]]) ?? []
        #expect(after.first { $0["workerID"] as? String == sickID }?["state"] as? String == "ready", "\(after)")
        let again = try farm.reel(["workers", "--release", sickID])
        #expect(again.status != 0 && again.stderr.contains("not quarantined"), "\(again.stderr)")
    }
}
