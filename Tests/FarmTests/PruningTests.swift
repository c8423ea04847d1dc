import Foundation
import ReelTestSupport
import RenderEngine
import SessionKit
import Testing
@testable import Farm

/// Ended jobs past `--keep-jobs` are forgotten (docs/operations.md, "Housekeeping"): their
/// rows are chosen on the lane and deleted by the loop a slice a turn, in statements of at
/// most 64 rows, so a job of thousands of shards never holds the loop (the suite's armed
/// `LoopGuard` stops a debug build on a bigger statement). Waits on the store, 20 s at most.
@Suite struct PruningTests {
    @Test(arguments: StoreKind.tested) func anEndedJobOfManyShardsIsForgottenInSlices(kind: StoreKind) throws {
        let dir = try TestEnvironment.scratchDirectory()
        var options = Coordinator.Options.scratch(in: dir)
        options.store = try kind.freshLocation()
        options.keepResultsSeconds = 1
        options.keepJobsSeconds = 1
        try FileManager.default.createDirectory(at: options.stateDirectory, withIntermediateDirectories: true)
        let spec = try SpecFixtures.clipJob()
        let shards = 300
        do {
            // What a farm keeps of two jobs that ended long ago, one still inside --keep-jobs' view.
            let store = try JobStore(at: options.store)
            for (id, finished) in [("jold", 1.0), ("jnew", Date().timeIntervalSince1970 + 3600)] {
                var record = JobStore.JobRecord(id: id, state: .queued, priority: 0, created: 1, finished: nil, session: "{}",
                                                files: [:], paths: [:], settings: EncoderSettings(), totalFrames: spec.output.frames)
                record.shardsWritten = true
                try store.createJob(record, shards: [])
                let text = try JobStore.json(spec.tasks[0])
                try store.insertShards(job: id, from: 0, texts: Array(repeating: text, count: shards)[...],
                                       frames: Array(repeating: spec.tasks[0].frameCount, count: shards)[...])
                try store.setJobState(id, .done, finished: finished)
            }
            try store.recordFirstAnswer(owner: nil, key: "k", requestSHA256: "x", reply: Submitted(jobID: "jold", missing: [], problems: []), at: 1)
        }
        let coordinator = try CoordinatorThread(options)
        defer { coordinator.stop() }
        let store = try JobStore(at: options.store)
        let deadline = Date().addingTimeInterval(20)
        // Jobs and idempotency answers are forgotten by separate slices: wait for both.
        while try store.jobSummary("jold") != nil || store.firstAnswer(owner: nil, key: "k") != nil, Date() < deadline { usleep(50_000) }
        #expect(try store.jobSummary("jold") == nil && store.shards(of: "jold").isEmpty)
        #expect(try store.firstAnswer(owner: nil, key: "k") == nil)
        // A job that ended inside --keep-jobs is kept whole.
        #expect(try store.shards(of: "jnew").count == shards)
    }
}
