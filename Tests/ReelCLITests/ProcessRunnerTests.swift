import Foundation
import ReelTestSupport
import Testing

/// The test suite's process runner: a child that hangs, with children of its own holding
/// its pipes, is killed at the timeout with them, so a hung test fails instead of hanging CI
/// (a bench script's coordinator once could not bind, and its loop asked for ever).
struct ProcessRunnerTests {
    @Test func aHungChildAndItsChildrenAreKilledAtTheTimeout() throws {
        let started = Date()
        let run = try ProcessRunner.run("/bin/bash", ["-c", "sleep 120 & sleep 120; echo never"], timeout: 1)
        #expect(Date().timeIntervalSince(started) < 30, "the runner waited for the children")
        #expect(run.status != 0 && !run.stdout.contains("never"))
    }
}
