import Foundation
import ReelTestSupport
import RenderEngine
import SessionKit
import Testing
@testable import Farm

@Suite struct JobStoreTests {
    private func record(_ id: String) -> JobStore.JobRecord {
        JobStore.JobRecord(id: id, state: .queued, priority: 5, created: 1, finished: nil, session: "{}", files: ["a": "sha256:x"],
                           paths: [:], settings: EncoderSettings(), totalFrames: 90, error: nil)
    }

    private let tasks = [ShardTask(kind: .audio, segment: 0, startFrame: 0, endFrame: 0, outputStartFrame: 0),
                         ShardTask(kind: .video, segment: 0, startFrame: 0, endFrame: 90, outputStartFrame: 0)]

    @Test func stateSurvivesReopening() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let path = dir.appendingPathComponent("farm.sqlite").path
        do {
            let store = try JobStore(path: path)
            try store.createJob(record("j1"), shards: tasks)
            try store.recordWorker(id: "w1", host: "h", slots: 2, at: 3)
            try store.startAttempt(job: "j1", shard: 1, attempt: 1, worker: "w1", at: 4)
            try store.finishShard(job: "j1", shard: 1, attempt: 1, sha256: "abc", worker: "w1", at: 5)
            try store.startAttempt(job: "j1", shard: 0, attempt: 1, worker: "w1", at: 6)
            try store.endAttempt(job: "j1", shard: 0, attempt: 1, outcome: "failed", message: "w1: boom", at: 7, requeue: true)
        }
        let reopened = try JobStore(path: path)
        let jobs = try reopened.jobs()
        #expect(jobs.map(\.id) == ["j1"])
        #expect(jobs.first?.files == ["a": "sha256:x"])
        let shards = try reopened.shards(of: "j1")
        #expect(shards.map(\.state) == [.queued, .done])
        #expect(shards[1].sha256 == "abc" && shards[1].task.endFrame == 90)
        #expect(try reopened.failures(job: "j1")[0]?.map(\.message) == ["w1: boom"])
        #expect(try reopened.shardsDone(byWorker: "w1") == 1)
    }

    /// Attempts in flight when the coordinator died get an outcome on restart; finished and
    /// failed ones keep theirs.
    @Test func resumeClosesStaleAttempts() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let store = try JobStore(path: dir.appendingPathComponent("farm.sqlite").path)
        try store.createJob(record("j1"), shards: tasks)
        try store.startAttempt(job: "j1", shard: 0, attempt: 1, worker: "w1", at: 1)
        try store.endAttempt(job: "j1", shard: 0, attempt: 1, outcome: "failed", message: "w1: boom", at: 2, requeue: true)
        try store.startAttempt(job: "j1", shard: 0, attempt: 2, worker: "w2", at: 3)
        try store.startAttempt(job: "j1", shard: 1, attempt: 1, worker: "w1", at: 3)
        try store.startAttempt(job: "j1", shard: 1, attempt: 2, worker: "w2", at: 4)   // a backup
        #expect(try store.closeOpenAttempts(job: "j1", at: 9, reason: "coordinator restarted") == 3)
        #expect(try store.closeOpenAttempts(job: "j1", at: 10, reason: "again") == 0)
        #expect(try store.failures(job: "j1")[0]?.map(\.message) == ["w1: boom"])
    }

    @Test func aBatchCommitsTogetherAndAFailedChangeInsideUndoesOnlyItself() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let path = dir.appendingPathComponent("farm.sqlite").path
        do {
            let store = try JobStore(path: path)
            try store.createJob(record("j1"), shards: tasks)
            try store.batch {
                try store.startAttempt(job: "j1", shard: 1, attempt: 1, worker: "w1", at: 4)
                // A change that fails half-way (a duplicate job) inside the batch…
                #expect(throws: (any Error).self) { try store.createJob(self.record("j1"), shards: self.tasks) }
                try store.finishShard(job: "j1", shard: 1, attempt: 1, sha256: "abc", worker: "w1", at: 5)
            }
            // …and a batch that fails as a whole.
            #expect(throws: (any Error).self) {
                try store.batch {
                    try store.requeueShard(job: "j1", shard: 1)
                    throw JobStoreTestError()
                }
            }
        }
        let shards = try JobStore(path: path).shards(of: "j1")
        #expect(shards.map(\.state) == [.queued, .done])
        #expect(shards[1].sha256 == "abc")
        #expect(try JobStore(path: path).attemptCounts(job: "j1") == [1: 1])
    }

    @Test func aFailedTransactionChangesNothing() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let store = try JobStore(path: dir.appendingPathComponent("farm.sqlite").path)
        try store.createJob(record("j1"), shards: tasks)
        // The same id again violates the primary key: the transaction rolls back, no extra shard remains.
        #expect(throws: (any Error).self) { try store.createJob(record("j1"), shards: tasks + tasks) }
        #expect(try store.shards(of: "j1").count == 2)
    }
}

private struct JobStoreTestError: Error {}
