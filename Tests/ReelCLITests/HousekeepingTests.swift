import Foundation
import ReelTestSupport
import Testing

/// Results and uploads leave the coordinator after `--keep-results` or on `fetch
/// --delete` (docs/operations.md, "Housekeeping").
@Suite(.serialized) struct HousekeepingTests {
    @Test func resultsAndUploadsAreRemovedAfterTheirTimeOrOnDelete() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        try farm.startCoordinator(["--keep-results", "4s"])
        try farm.startWorker("a")
        // Fetched with --delete: gone from the coordinator at once.
        let first = try farm.submit()
        let deleted = try farm.reel(["fetch", first, "-o", "first.mp4", "--wait", "--delete"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: farm.path("first.mp4"))) == (try farm.reference()))
        let again = try farm.reel(["fetch", first, "-o", "again.mp4"])
        #expect(again.status != 0 && again.stderr.contains("is not on the coordinator"), "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: farm.path("again.mp4")))

        // Kept for --keep-results, then removed with the uploads no job reads.
        let second = try farm.submit()
        _ = try farm.fetched(second, "second.mp4")
        let status = try farm.reel(["status"])
        #expect(status.stdout.contains("state directory: "), "\(status.stdout)")
        #expect(try farm.waitUntil(20) { farm.log("coordinator.log").contains("removed the result of job \(second)") })
        #expect(try farm.waitUntil(20) { farm.log("coordinator.log").contains("removed the upload sha256:") })
        let late = try farm.reel(["fetch", second, "-o", "late.mp4"])
        #expect(late.status != 0 && late.stderr.contains("was removed: results are kept 4 s"), "\(late.stderr)")
        let results = try FileManager.default.contentsOfDirectory(atPath: farm.stateDir.appendingPathComponent("results").path)
        #expect(results.isEmpty, "\(results)")
    }
}
