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

    @Test(arguments: StoreKind.tested) func stateSurvivesReopening(kind: StoreKind) throws {
        let location = try kind.freshLocation()
        do {
            let store = try JobStore(at: location)
            try store.createJob(record("j1"), shards: tasks)
            try store.recordWorker(id: "w1", host: "h", slots: 2, at: 3)
            try store.startAttempt(job: "j1", shard: 1, attempt: 1, worker: "w1", at: 4)
            try store.finishShard(job: "j1", shard: 1, attempt: 1, sha256: "abc", by: .worker("w1"), at: 5)
            try store.startAttempt(job: "j1", shard: 0, attempt: 1, worker: "w1", at: 6)
            try store.endAttempt(job: "j1", shard: 0, attempt: 1, outcome: .failed, message: "w1: boom", at: 7, requeue: true)
        }
        let reopened = try JobStore(at: location)
        let jobs = try reopened.jobs()
        #expect(jobs.map(\.id) == ["j1"])
        #expect(jobs.first?.files == ["a": "sha256:x"])
        let shards = try reopened.shards(of: "j1")
        #expect(shards.map(\.state) == [.queued, .done])
        #expect(shards[1].sha256 == "abc" && shards[1].task.endFrame == 90)
        #expect(try reopened.failures(job: "j1")[0]?.map(\.message) == ["w1: boom"])
        #expect(try reopened.shardsDone(byWorkers: ["w1", "w2"]) == ["w1": 1])
    }

    /// The job list: pages newest first that meet exactly (no job twice, none skipped, even
    /// with equal creation times), per owner, from an index; an ended job's counts summed by
    /// the store; and pruning that forgets only jobs ended before the cutoff.
    @Test(arguments: StoreKind.tested) func theListPagesNewestFirstAndOldJobsAreForgotten(kind: StoreKind) throws {
        let store = try JobStore(at: try kind.freshLocation())
        for i in 0..<7 {
            var job = record("j\(i)")
            job.created = Double(i / 2)   // pairs share a creation time
            job.owner = i % 3 == 0 ? "token:alice" : "token:bob"
            try store.createJob(job, shards: tasks)
        }
        var seen: [String] = []
        var cursor: JobStore.JobCursor?
        repeat {
            let page = try store.jobSummaries(owner: nil, after: cursor, limit: 3)
            #expect(page.count <= 3)
            seen += page.map(\.id)
            cursor = page.count == 3 ? page.last.map { JobStore.JobCursor(created: $0.created, id: $0.id) } : nil
            if let text = cursor?.text { #expect(JobStore.JobCursor(text) == cursor) }
        } while cursor != nil
        #expect(seen == ["j6", "j5", "j4", "j3", "j2", "j1", "j0"])
        #expect(try store.jobSummaries(owner: "token:alice", after: nil, limit: 10).map(\.id) == ["j6", "j3", "j0"])
        // Seven rows would be read whole by PostgreSQL's planner: told not to, it must find the index.
        if kind == .postgres { try store.db.execute("SET enable_seqscan = off") }
        let plan = try store.db.query((kind == .sqlite ? "EXPLAIN QUERY PLAN" : "EXPLAIN")
                                      + " SELECT id FROM jobs WHERE owner=? ORDER BY created DESC, id DESC LIMIT 3",
                                      [.text("token:alice")]).compactMap { $0.last?.string }
        #expect(plan.contains { $0.contains(kind == .sqlite ? "INDEX jobs_by_owner" : "using jobs_by_owner") }, "\(plan)")

        try store.startAttempt(job: "j1", shard: 1, attempt: 1, worker: "w1", at: 2)
        try store.finishShard(job: "j1", shard: 1, attempt: 1, sha256: "abc", by: .worker("w1"), at: 3)
        let counts = try store.shardCounts(of: "j1")
        #expect(counts.byState == ShardCounts(queued: 1, done: 1) && counts.framesDone == 90 && counts.doneBy == [.worker("w1"): 1])

        try store.setJobState("j0", .done, finished: 10)
        try store.setJobState("j1", .failed, error: FarmError(.originRefused, "boom"), finished: 20)
        // The code is kept with the message.
        #expect(try store.jobSummary("j1")?.error == "boom" && store.jobSummary("j1")?.errorCode == .originRefused)
        #expect(try store.prunable(endedBefore: 15) == ["j0"])
        // In slices of at most 1 row: its 2 attempts... here 0, its 2 shards, then the job.
        var slices = 1
        while try !store.pruneSlice(of: "j0", rows: 1) { slices += 1 }
        #expect(slices == 3, "\(slices) slices")
        #expect(try store.jobSummary("j0") == nil && store.shards(of: "j0").isEmpty)
        #expect(try store.jobSummary("j1")?.state == .failed && store.jobSummary("j2")?.state == .queued)
    }

    /// Attempts in flight when the coordinator died get an outcome on restart; finished and
    /// failed ones keep theirs.
    @Test(arguments: StoreKind.tested) func resumeClosesStaleAttempts(kind: StoreKind) throws {
        let store = try JobStore(at: try kind.freshLocation())
        try store.createJob(record("j1"), shards: tasks)
        try store.startAttempt(job: "j1", shard: 0, attempt: 1, worker: "w1", at: 1)
        try store.endAttempt(job: "j1", shard: 0, attempt: 1, outcome: .failed, message: "w1: boom", at: 2, requeue: true)
        try store.startAttempt(job: "j1", shard: 0, attempt: 2, worker: "w2", at: 3)
        try store.startAttempt(job: "j1", shard: 1, attempt: 1, worker: "w1", at: 3)
        try store.startAttempt(job: "j1", shard: 1, attempt: 2, worker: "w2", at: 4)   // a backup
        #expect(try store.closeOpenAttempts(job: "j1", at: 9, reason: "coordinator restarted") == 3)
        #expect(try store.closeOpenAttempts(job: "j1", at: 10, reason: "again") == 0)
        #expect(try store.failures(job: "j1")[0]?.map(\.message) == ["w1: boom"])
    }

    @Test(arguments: StoreKind.tested) func aBatchCommitsTogetherAndAFailedChangeInsideUndoesOnlyItself(kind: StoreKind) throws {
        let location = try kind.freshLocation()
        do {
            let store = try JobStore(at: location)
            try store.createJob(record("j1"), shards: tasks)
            try store.batch {
                try store.startAttempt(job: "j1", shard: 1, attempt: 1, worker: "w1", at: 4)
                // A change that fails half-way (a duplicate job) inside the batch…
                #expect(throws: (any Error).self) { try store.createJob(self.record("j1"), shards: self.tasks) }
                try store.finishShard(job: "j1", shard: 1, attempt: 1, sha256: "abc", by: .worker("w1"), at: 5)
            }
            // …and a batch that fails as a whole.
            #expect(throws: (any Error).self) {
                try store.batch {
                    try store.requeueShard(job: "j1", shard: 1)
                    throw JobStoreTestError()
                }
            }
        }
        let shards = try JobStore(at: location).shards(of: "j1")
        #expect(shards.map(\.state) == [.queued, .done])
        #expect(shards[1].sha256 == "abc")
        #expect(try JobStore(at: location).attemptCounts(job: "j1") == [1: 1])
    }

    @Test(arguments: StoreKind.tested) func aFailedTransactionChangesNothing(kind: StoreKind) throws {
        let store = try JobStore(at: try kind.freshLocation())
        try store.createJob(record("j1"), shards: tasks)
        // The same id again violates the primary key: the transaction rolls back, no extra shard remains.
        #expect(throws: (any Error).self) { try store.createJob(record("j1"), shards: tasks + tasks) }
        #expect(try store.shards(of: "j1").count == 2)
    }
}

private struct JobStoreTestError: Error {}

/// The store keeps presigned URLs whole (docs/operations.md, "Secrets at rest"): a store
/// it creates, and the files SQLite makes beside it, are readable by their owner only.
@Suite struct JobStoreModeTests {
    @Test func aNewStoreAndItsLogAreTheOwnersOnly() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let path = dir.appendingPathComponent("farm.sqlite").path
        let store = try JobStore(path: path, syncedBy: nil)
        try store.createJob(JobStore.JobRecord(id: "j1", state: .queued, priority: 0, created: 1, finished: nil,
                                               session: #"{"video": {"videoSegments": [{"source": "https://o.example/a.mp4?sig=s"}]}}"#,
                                               files: [:], paths: [:], settings: EncoderSettings(), totalFrames: 1, error: nil), shards: [])
        for file in [path, path + "-wal"] {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int, "\(file)")
            #expect(mode & 0o077 == 0, "\(file): \(String(mode, radix: 8))")
        }
    }
}
