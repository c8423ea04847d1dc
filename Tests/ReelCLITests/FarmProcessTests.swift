import Foundation
import ReelTestSupport
import Testing

/// The farm as users run it: real processes and sockets on loopback (docs/operations.md).
@Suite(.serialized) struct FarmProcessTests {
    @Test func coordinatorAndTwoWorkersMatchASingleWorkerRender() throws {
        let farm = try FarmFixture()
        try farm.makeSession()
        try farm.startCoordinator()
        try farm.startWorker("a")
        try farm.startWorker("b")
        #expect(try farm.waitUntil(20) { (try? JSONSerialization.jsonObject(with: farm.reel(["workers", "--json"]).stdoutData) as? [Any])?.count == 2 })
        let job = try farm.submit()
        let output = try farm.fetched(job)
        #expect(output == (try farm.reference()))
        let status = try farm.status(job)
        #expect(status["state"] as? String == "done")
        #expect(status["framesDone"] as? Int == status["totalFrames"] as? Int)
        // Both workers took part.
        #expect((status["workers"] as? [String: Int])?.count == 2)
        #expect(FileManager.default.fileExists(atPath: farm.path("out.reel.json")))
        // The default workers have no media roots: they read the media from the coordinator,
        // by ranges (docs/operations.md, "Media"), video and audio alike.
        let logs = farm.log("worker-a.log") + farm.log("worker-b.log")
        #expect(logs.contains(/shard 0 read \d+ of \d+ blocks of sha256:/), "the audio task read its media by ranges")
        #expect(!logs.contains("fetching sha256:"), "no worker fetched a whole file")
    }

    @Test func killingAWorkerMidJobLosesNothing() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 6)
        try farm.startCoordinator()
        // Slowed down, so the kill surely lands mid-job on any machine.
        try farm.startWorker("victim", ["--test-shard-delay", "150"])
        try farm.startWorker("survivor", ["--test-shard-delay", "150"])
        let job = try farm.submit()
        #expect(try farm.waitUntil(60) { (try farm.status(job)["framesDone"] as? Int ?? 0) > 0 })
        farm.killWorker("victim")
        let output = try farm.fetched(job)
        #expect(output == (try farm.reference()))
        #expect(farm.log("coordinator.log").contains("is gone"))
    }

    /// Also for a store an older release wrote, whose job has no spec this release reads:
    /// the job is compiled again from its session once its resume finds that out.
    @Test(arguments: [false, true]) func restartedCoordinatorResumesWithoutRerenderingFinishedShards(olderRelease: Bool) throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 6)
        try farm.startCoordinator()
        let renderLog = farm.path("renders.log")
        // Slowed down, so the coordinator surely dies mid-job on any machine.
        try farm.startWorker("a", ["--test-render-log", renderLog, "--test-shard-delay", "150"])
        try farm.startWorker("b", ["--test-render-log", renderLog, "--test-shard-delay", "150"])
        let job = try farm.submit()
        #expect(try farm.waitUntil(60) { (try farm.status(job)["shards"] as? [String: Int])?["done"] ?? 0 >= 3 })
        farm.killCoordinator()
        let linesAtKill = (try? String(contentsOfFile: renderLog, encoding: .utf8))?.split(separator: "\n").count ?? 0
        // What the store says had finished when the coordinator died.
        let python = try #require(ProcessRunner.which("python3"))
        let query = try ProcessRunner.run(python, ["-c", "import sqlite3,sys; print(' '.join(str(r[0]) for r in sqlite3.connect(sys.argv[1]).execute(\"select idx from shards where job_id=? and state='done'\", (sys.argv[2],))))",
                                                   farm.stateDir.appendingPathComponent("farm.sqlite").path, job])
        let finishedBefore = Set(query.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        #expect(finishedBefore.count >= 3)
        if olderRelease {
            _ = try ProcessRunner.run(python, ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"update jobs set spec=NULL where id=?\", (sys.argv[2],)); c.commit()",
                                               farm.stateDir.appendingPathComponent("farm.sqlite").path, job])
        }
        try farm.startCoordinator()
        let output = try farm.fetched(job)
        #expect(output == (try farm.reference()))
        let lines = (try String(contentsOfFile: renderLog, encoding: .utf8)).split(separator: "\n")
        let renderedAfter = Set(lines.dropFirst(linesAtKill).compactMap { line -> Int? in
            let parts = line.split(separator: " ")
            return parts.count >= 2 && parts[0] == job ? Int(parts[1]) : nil
        })
        #expect(renderedAfter.isDisjoint(with: finishedBefore), "re-rendered \(renderedAfter.intersection(finishedBefore))")
        #expect(farm.log("coordinator.log").contains("resumed job \(job)"))
        #expect(farm.log("coordinator.log").contains("job \(job): compiled again from its session") == olderRelease)
    }

    @Test func corruptedChunksAreRejectedAndRenderedAgain() throws {
        let farm = try FarmFixture()
        try farm.makeSession()
        try farm.startCoordinator()
        try farm.startWorker("hostile", ["--test-corrupt-chunks"])
        // Slowed, and both present before the submit, so the hostile worker surely gets shards.
        try farm.startWorker("honest", ["--test-shard-delay", "100"])
        #expect(try farm.waitUntil(20) { (try? JSONSerialization.jsonObject(with: farm.reel(["workers", "--json"]).stdoutData) as? [Any])?.count == 2 })
        let job = try farm.submit()
        let output = try farm.fetched(job)
        #expect(output == (try farm.reference()))
        #expect(farm.log("coordinator.log").contains("rejected chunk"))
    }

    @Test func failingWorkersFailTheJobWithTheirMessagesAndTheFarmGoesOn() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        try farm.startCoordinator()
        for name in ["f1", "f2", "f3"] { try farm.startWorker(name, ["--test-fail-always"]) }
        #expect(try farm.waitUntil(20) { (try? JSONSerialization.jsonObject(with: farm.reel(["workers", "--json"]).stdoutData) as? [Any])?.count == 3 })
        let job = try farm.submit()
        let watch = try farm.reel(["watch", job])
        #expect(watch.status == 1)
        let status = try farm.status(job)
        #expect(status["state"] as? String == "failed")
        let error = (status["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(error.contains("--fail-always"))
        // Three different workers failed it, each named with its message.
        let failedOn = Set(error.split(whereSeparator: { $0 == " " || $0 == ";" }).filter { $0.hasPrefix("w-") && $0.hasSuffix(":") })
        #expect(failedOn.count == 3, "\(error)")
        #expect(error.components(separatedBy: "--fail-always").count - 1 >= 3)
        for name in ["f1", "f2", "f3"] { farm.killWorker(name) }
        try farm.startWorker("good")
        let second = try farm.submit()
        #expect(try farm.fetched(second) == (try farm.reference()))
    }

    @Test func cancelStopsAJobAndPriorityGoesFirst() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 6)
        try farm.startCoordinator()
        try farm.startWorker("only", ["--test-shard-delay", "100"])   // slowed: the first job must still run when the others arrive
        let low = try farm.submit(["--priority", "0"])
        let doomed = try farm.submit(["--priority", "0"])
        // Another recipe (its CRF): shards of the same recipe would be twins, rendered once
        // for both jobs and finished together (docs/rendering.md, "Twins").
        let high = try farm.submit(["--priority", "10", "--crf", "21"])
        let cancel = try farm.reel(["cancel", doomed])
        #expect(cancel.status == 0)
        #expect(try farm.status(doomed)["state"] as? String == "cancelled")
        #expect(try farm.reel(["watch", high]).status == 0)
        #expect(try farm.reel(["watch", low]).status == 0)
        let highFinished = try farm.status(high)["finished"] as? Double ?? .infinity
        let lowFinished = try farm.status(low)["finished"] as? Double ?? 0
        #expect(highFinished < lowFinished)
        #expect(try farm.reel(["watch", doomed]).status == 1)
    }

    @Test func protocolVersionMismatchIsAClearErrorOnBothSides() throws {
        let farm = try FarmFixture()
        try farm.startCoordinator()
        #expect(try farm.waitUntil(10) { try farm.reel(["workers"]).status == 0 })
        let result = try ProcessRunner.run(TestEnvironment.reel, ["status", "--coordinator", farm.endpoint],
                                           environment: ProcessInfo.processInfo.environment.merging(["REEL_TEST_PROTOCOL_VERSION": "99"]) { $1 })
        #expect(result.status == 1)
        #expect(result.stderr.contains("protocol version mismatch"))
        #expect(farm.log("coordinator.log").contains("protocol version mismatch: peer speaks version 99"))
    }
}
