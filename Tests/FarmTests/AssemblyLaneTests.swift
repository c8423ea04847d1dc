import Foundation
import ReelTestSupport
import RenderEngine
import SessionKit
import Testing
@testable import Farm

/// The coordinator's assembly lane (docs/rendering.md, "Assembly" and "Live preview").
struct AssemblyLaneTests {
    /// A done job's live preview is ended on the lane after the job's answer, from the job's
    /// chunks; the coordinator removes them in the drop's follow-up. That follow-up runs only
    /// once the preview has ended: when the loop began answering at once, the removal
    /// overtook the preview, which then lacked its last segments and was given up (a 410 for
    /// every player).
    @Test func aDoneJobsChunksAreLetGoOnlyOnceItsPreviewHasEnded() throws {
        let dir = try TestEnvironment.scratchDirectory("assembly-lane")
        var clip = SampleMedia()
        clip.duration = 4
        clip.width = 64
        clip.height = 36
        try clip.write(to: dir.appendingPathComponent("clip.mp4").path)
        let session = try TestEnvironment.write(#"{"video": {"videoSegments": [{"source": "clip.mp4"}]}}"#, to: "s.json", in: dir)
        let loaded = try LoadedSession.load(path: session, looks: nil)
        let spec = try JobSpec.compile(loaded, settings: EncoderSettings(keyframeIntervalSeconds: 0.5),
                                       contentIDs: ["clip.mp4": "sha256:cc"], shardKeyframeIntervals: 1)
        let chunks = dir.appendingPathComponent("chunks")
        try FileManager.default.createDirectory(at: chunks, withIntermediateDirectories: true)
        let paths = spec.tasks.indices.map { chunks.appendingPathComponent("\($0).chunk").path }
        for task in spec.tasks.indices {
            _ = try ShardRenderer.render(spec.shard(task), media: ["clip.mp4": .file(dir.appendingPathComponent("clip.mp4").path)],
                                         assets: [:], to: paths[task])
        }
        let videoChunks = spec.tasks.filter { $0.kind == .video }.count
        #expect(videoChunks >= 4, "\(videoChunks) video chunks: too few to show a late segment")

        let lane = AssemblyLane(wakes: try Wakeup()) { _ in }
        defer { lane.shutDown() }
        let preview = dir.appendingPathComponent("preview")
        let output = dir.appendingPathComponent("out.mp4").path
        let letGo = DispatchSemaphore(value: 0)
        lane.post(.begin(job: "j", spec: spec, output: output, preview: preview.path, chunks: paths))
        lane.post(.finish(job: "j"))
        lane.post(.drop(job: "j") {
            try? FileManager.default.removeItem(at: chunks)   // what the coordinator's I/O lane does
            letGo.signal()
        })
        #expect(letGo.wait(timeout: .now() + 30) == .success)
        let answers = lane.finished.take()
        #expect(answers.map(\.job) == ["j"] && answers.first?.error == nil, "\(answers)")
        #expect(FileManager.default.fileExists(atPath: output))
        let index = try #require(try LivePreview.Index.read(in: preview.path), "the preview was given up")
        #expect(index.ended && index.segments.count == videoChunks, "\(index.segments.count) of \(videoChunks) segments, ended: \(index.ended)")
    }
}
