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
    }
}
