import Foundation
import ReelTestSupport
import RenderEngine
import SessionKit
import Testing
@testable import Farm

/// A batch is all or none (docs/api.md, "Batches") also across a stop: its jobs are made
/// over several turns, and a coordinator that stopped in the middle left the variants made
/// so far rendering. A batch is recorded as begun with its first job, and so is a job whose
/// shard rows take more than one turn; a restart cancels the jobs of either still recorded
/// (a job resumed short of shards would render a short file) and resumes every other job.
@Suite struct BatchCreationTests {
    @Test(arguments: StoreKind.tested) func aBatchHalfMadeWhenTheCoordinatorStoppedIsCancelledOnRestart(kind: StoreKind) throws {
        let dir = try TestEnvironment.scratchDirectory("batchHalfMade")   // an ipc:// path is at most 107 bytes
        var options = Coordinator.Options.scratch(in: dir)
        options.store = try kind.freshLocation()
        try FileManager.default.createDirectory(at: options.stateDirectory, withIntermediateDirectories: true)
        let spec = try SpecFixtures.clipJob()
        // The jobs' medium is in the media store, as an upload is (a resumed job whose media
        // are gone fails with mediaLost instead of resuming).
        let media = options.stateDirectory.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        for contentID in Set(spec.files.values.map(\.contentID)) {
            let hex = try #require(ContentID(contentID)?.hex)
            #expect(FileManager.default.createFile(atPath: media.appendingPathComponent(hex).path, contents: Data("clip".utf8)))
        }
        let text = String(decoding: try spec.encoded(), as: UTF8.self)
        do {
            // What a coordinator stopped mid-batch leaves: two variants of "bhalf" made and
            // the batch still begun; "bwhole" made to its end.
            let store = try JobStore(at: options.store)
            func make(_ id: String, batch: String) throws {
                try store.createJob(JobStore.JobRecord(id: id, state: .queued, priority: 0, created: 1, finished: nil, session: "{}",
                                                       files: ["a.mp4": spec.files["a.mp4"]!.contentID], paths: [:],
                                                       settings: EncoderSettings(), totalFrames: spec.output.frames, spec: text,
                                                       batch: batch, variant: id),
                                    shards: spec.tasks)
            }
            try store.batch {
                // A job whose shard rows took more than one turn, stopped after its first slice.
                try store.apply(.batchBegun("jshort", at: 1))
                var short = JobStore.JobRecord(id: "jshort", state: .queued, priority: 0, created: 1, finished: nil, session: "{}",
                                               files: ["a.mp4": spec.files["a.mp4"]!.contentID], paths: [:],
                                               settings: EncoderSettings(), totalFrames: spec.output.frames, spec: text)
                short.shardsWritten = true
                try store.apply(.createJob(short, spec.tasks))
                try store.apply(.addShards(job: "jshort", from: 0, texts: [try JobStore.json(spec.tasks[0])], frames: [spec.tasks[0].frameCount]))
                try store.apply(.batchBegun("bhalf", at: 1))
                try make("jhalf1", batch: "bhalf")
                try make("jhalf2", batch: "bhalf")
                try store.apply(.batchBegun("bwhole", at: 1))
                try make("jwhole", batch: "bwhole")
                try store.apply(.batchMade("bwhole"))
            }
        }
        let coordinator = try CoordinatorThread(options)
        defer { coordinator.stop() }
        let client = try FarmClient(endpoint: coordinator.endpoint)
        #expect(spec.tasks.count > 1)
        for id in ["jhalf1", "jhalf2", "jshort"] {
            let status = try #require(try client.status(id).first)
            #expect(status.state == .cancelled, "\(status)")
            #expect(status.error?.message.contains("stopped while making this job") == true, "\(status.error?.message ?? "")")
        }
        let whole = try #require(try client.status("jwhole").first)
        #expect(!whole.state.isFinal, "\(whole)")
        // Forgotten once handled: the next restart cancels nothing more.
        let store = try JobStore(at: options.store)
        #expect(try store.abandonUnfinishedBatches(at: 2).isEmpty)
    }
}
