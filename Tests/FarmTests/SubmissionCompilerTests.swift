import Foundation
import ReelTestSupport
import RenderEngine
import SessionKit
import Testing
@testable import Farm

/// What the coordinator's submission compiler answers, off the loop: problems before any
/// file is read, the content ids it cannot find, or a compiled job — with the files in
/// place it had to hash, and none it had already verified.
struct SubmissionCompilerTests {
    /// A batch is bounded as a whole (docs/operations.md, "Limits"): one whose segments
    /// alone pass `--max-shards` is refused with its numbers before any variant is compiled
    /// (nothing is looked for: no missing media), and one within it is compiled.
    @Test func aBatchOverTheShardLimitIsRefusedBeforeAnyVariantIsCompiled() throws {
        let dir = try TestEnvironment.scratchDirectory()
        var limits = JobLimits()
        limits.shards = 5
        let context = SubmissionCompiler.Context(stateDirectory: dir, catalog: MediaCatalog(directory: dir.appendingPathComponent("media"), roots: []),
                                                 looks: nil, strictLooks: false, acceptsCallbacks: false, callbackPolicy: URLPolicy(),
                                                 limits: limits, origins: OriginClient(policy: URLPolicy()))
        let unknown = "sha256:" + String(repeating: "1", count: 64)
        func batch(segments: Int, variants: Int) -> SubmissionCompiler.Outcome {
            let list = Array(repeating: #"{"source": "a.mp4"}"#, count: segments).joined(separator: ", ")
            var submit = Submit(session: #"{"video": {"videoSegments": [\#(list)]}}"#, files: ["a.mp4": unknown], paths: [:],
                                settings: EncoderSettings(), priority: 0)
            submit.variants = (0..<variants).map { BatchVariant(name: "v\($0)", replace: [:]) }
            return SubmissionCompiler.compile(SubmissionCompiler.Request(identity: Data("peer".utf8), submit: submit, owner: "o"),
                                              context: context, known: { _, _ in nil })
        }
        guard case .answer(_, let refused) = batch(segments: 3, variants: 2) else {
            Issue.record("a batch of 6 segments passed a limit of 5 shards")
            return
        }
        #expect(refused.missing.isEmpty && refused.problems.count == 1, "\(refused)")
        #expect(refused.problems.first?.path == "variants", "\(refused.problems)")
        #expect(refused.problems.first.map { $0.message.contains("6 shards") && $0.message.contains("at most 5") } == true, "\(refused.problems)")
        // Within the limit it is compiled: far enough to find that the media are missing.
        guard case .answer(_, let compiled) = batch(segments: 2, variants: 2) else {
            Issue.record("a batch within the limit was not compiled")
            return
        }
        #expect(compiled.missing == [unknown] && compiled.problems.isEmpty, "\(compiled)")
    }

    @Test func problemsMissingMediaAndACompiledJob() throws {
        let dir = try TestEnvironment.scratchDirectory()
        #expect(try TestEnvironment.reel(["sample", "clip.mp4", "--duration", "1", "--size", "64x36"], in: dir).status == 0)
        let clip = dir.appendingPathComponent("clip.mp4")
        let hex = try ProcessRunner.run("/usr/bin/sha256sum", [clip.path]).stdout.split(separator: " ").first.map(String.init) ?? ""
        let id = "sha256:" + hex
        let media = dir.appendingPathComponent("media"), roots = dir.appendingPathComponent("in-place")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: roots, withIntermediateDirectories: true)
        let context = SubmissionCompiler.Context(stateDirectory: dir, catalog: MediaCatalog(directory: media, roots: [roots]),
                                                 looks: nil, strictLooks: false, acceptsCallbacks: false, callbackPolicy: URLPolicy(),
                                                 origins: OriginClient(policy: URLPolicy()))
        let session = #"{"video": {"videoSegments": [{"source": "clip.mp4", "trimDuration": 0.5}]}}"#
        func compile(files: [String: String], paths: [String: String] = [:], callback: String? = nil,
                     known: (String, FileStat) -> String? = { _, _ in nil }) -> SubmissionCompiler.Outcome {
            let submit = Submit(session: session, files: files, paths: paths, settings: EncoderSettings(), priority: 0, callback: callback)
            return SubmissionCompiler.compile(SubmissionCompiler.Request(identity: Data("peer".utf8), submit: submit, owner: "o"),
                                              context: context, known: known)
        }

        // Problems first, before any file is looked for.
        guard case .answer(_, let refused) = compile(files: ["clip.mp4": "sha256:12"], callback: "ftp://x") else {
            Issue.record("a bad submission was compiled")
            return
        }
        #expect(refused.problems.contains { $0.path == "callback" }
                && refused.problems.contains { $0.path == "files.clip.mp4" && $0.message.contains("is not a content id") },
                "\(refused.problems)")

        // A content id the coordinator holds nowhere: the client is told to upload it.
        guard case .answer(_, let missing) = compile(files: ["clip.mp4": id]) else {
            Issue.record("a job was compiled without its media")
            return
        }
        #expect(missing.missing == [id] && missing.problems.isEmpty)

        // In place under a media root: hashed once, and reported so the loop remembers it.
        let inPlace = roots.appendingPathComponent("clip.mp4")
        try FileManager.default.copyItem(at: clip, to: inPlace)
        guard case .compiled(let job) = compile(files: ["clip.mp4": id], paths: ["clip.mp4": inPlace.path]) else {
            Issue.record("the file in place was not found")
            return
        }
        #expect(job.verified.map(\.path) == [inPlace.path] && job.verified.map(\.contentID) == [id])
        #expect(job.owner == "o" && job.spec.output.frames == 15 && job.recipeKeys.count == job.spec.tasks.count)
        // Remembered by path, size and time: not hashed again.
        guard case .compiled(let again) = compile(files: ["clip.mp4": id], paths: ["clip.mp4": inPlace.path], known: { path, _ in
            path == inPlace.path ? id : nil
        }) else {
            Issue.record("the remembered file was not found")
            return
        }
        #expect(again.verified.isEmpty)
        // Uploaded: found in the media store by its hex name, whatever the paths say.
        try FileManager.default.copyItem(at: clip, to: media.appendingPathComponent(hex))
        guard case .compiled(let uploaded) = compile(files: ["clip.mp4": id]) else {
            Issue.record("the upload was not found")
            return
        }
        #expect(uploaded.verified.isEmpty)

        // Reuse stays within an owner's own chunks unless the farm shares them: the same
        // recipe for two owners has two keys, so neither can time the other's renders.
        func keys(owner: String?, shared: Bool) -> [String] {
            var sharing = context
            sharing.sharesChunks = shared
            let submit = Submit(session: session, files: ["clip.mp4": id], paths: [:], settings: EncoderSettings(), priority: 0)
            guard case .compiled(let job) = SubmissionCompiler.compile(SubmissionCompiler.Request(identity: Data("peer".utf8), submit: submit,
                                                                                                  owner: owner), context: sharing, known: { _, _ in nil }) else { return [] }
            return job.recipeKeys
        }
        let alice = keys(owner: "token:alice", shared: false), bob = keys(owner: "token:bob", shared: false)
        #expect(!alice.isEmpty && Set(alice).isDisjoint(with: bob))
        #expect(keys(owner: "token:alice", shared: false) == alice)
        #expect(keys(owner: "token:alice", shared: true) == keys(owner: "token:bob", shared: true))
        #expect(keys(owner: "token:alice", shared: true) == keys(owner: nil, shared: false), "shared keys are the recipes'")

        // A replacement naming media another client sent: missing to this one, and nothing
        // of it read first (its probe's problem would tell the file is there, and its length).
        let junk = Data(repeating: 7, count: 4096)
        let junkID = ContentID(hex: Digest.sha256(junk))!.description
        try junk.write(to: media.appendingPathComponent(String(junkID.dropFirst("sha256:".count))))
        func replacing(holds: Bool) -> SubmissionCompiler.Outcome {
            var submit = Submit(session: session, files: ["clip.mp4": id, "other.mp4": junkID], paths: [:], settings: EncoderSettings(), priority: 0)
            submit.replace = ["clip.mp4": "other.mp4"]
            return SubmissionCompiler.compile(SubmissionCompiler.Request(identity: Data("peer".utf8), submit: submit, owner: "bob", holder: "bob"),
                                              context: context, known: { _, _ in nil }, holds: { _, _ in holds })
        }
        guard case .answer(_, let unshown) = replacing(holds: false) else {
            Issue.record("media the client has not shown were used")
            return
        }
        #expect(unshown.missing.contains(junkID) && unshown.problems.isEmpty, "\(unshown)")
        // The client that sent it hears what is wrong with it.
        guard case .answer(_, let shown) = replacing(holds: true) else {
            Issue.record("a replacement by a file that is not media was compiled")
            return
        }
        #expect(shown.problems.first?.path == "replace" && shown.missing.isEmpty, "\(shown)")
    }
}
