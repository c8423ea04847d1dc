import Foundation
import RenderEngine
import SessionKit
import ReelTestSupport
import Synchronization
import Testing
@testable import Farm

/// A whole upload handed over by path (`adopt`; docs/protocol.md, "Uploads"): taken only from
/// the API's folder, hashed once by the coordinator and moved into its media; anything else a
/// peer names is refused and left as it was.
@Suite struct HandedOverUploadTests {
    @Test func onlyAFileInTheAPIsFolderIsTakenAndOnlyIfItsBytesAreItsID() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let options = Coordinator.Options.scratch(in: dir)
        let folder = options.apiUploads
        let media = options.stateDirectory.appendingPathComponent("media")
        let coordinator = try CoordinatorThread(options)
        defer { coordinator.stop() }
        let client = try FarmClient(endpoint: coordinator.endpoint)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("owners/x"), withIntermediateDirectories: true)

        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let id = ContentID(hex: Digest.sha256(bytes))!.description
        let hex = String(id.dropFirst("sha256:".count))
        func refusal(_ path: URL) -> FarmErrorCode? {
            do {
                _ = try client.adopt(path, contentID: id, holder: nil)
                return nil
            } catch let error as FarmError {
                return error.code
            } catch {
                return .internal
            }
        }

        // Outside the folder, through a link in it, or climbing out of it: refused, untouched.
        let outside = dir.appendingPathComponent("secret.bin")
        try bytes.write(to: outside)
        let link = folder.appendingPathComponent("link.part")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        let climbing = URL(fileURLWithPath: folder.path + "/owners/x/../../../secret.bin")
        for path in [outside, link, climbing] {
            #expect(refusal(path) == .invalidInput, "\(path.path)")
        }
        #expect(try Data(contentsOf: outside) == bytes)
        #expect(!FileManager.default.fileExists(atPath: media.appendingPathComponent(hex).path))

        // Bytes that are not the content id: refused and dropped, nothing stored.
        let forged = folder.appendingPathComponent("owners/x/\(hex).part")
        var wrong = bytes
        wrong[0] ^= 0xFF
        try wrong.write(to: forged)
        #expect(refusal(forged) == .invalidInput)
        #expect(!FileManager.default.fileExists(atPath: forged.path))
        #expect(!FileManager.default.fileExists(atPath: media.appendingPathComponent(hex).path))

        // The right bytes: moved into the media (the same file), then a second copy is only checked.
        try bytes.write(to: forged)
        let first = try client.adopt(forged, contentID: id, holder: "token:alice")
        #expect(first.complete && first.received == bytes.count && first.wasStored == false)
        #expect(try Data(contentsOf: media.appendingPathComponent(hex)) == bytes)
        #expect(!FileManager.default.fileExists(atPath: forged.path))
        #expect(try client.hasMedia(id, holder: "token:alice") && !client.hasMedia(id, holder: "token:bob"))
        try bytes.write(to: forged)
        let again = try client.adopt(forged, contentID: id, holder: "token:bob")
        #expect(again.complete && again.wasStored == true)
        #expect(!FileManager.default.fileExists(atPath: forged.path))
        #expect(try client.hasMedia(id, holder: "token:bob"))
    }
}

/// A submission carries how long its client waits (`answerWithin`; docs/api.md,
/// "Submitting"): one the coordinator could not answer in that time is never created, so
/// a client that gave up (a 504) and retries does not get its first try rendered too.
@Suite struct SubmissionDeadlineTests {
    @Test func aSubmissionPastItsClientsWaitIsNotCreated() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let coordinator = try CoordinatorThread(.scratch(in: dir))
        defer { coordinator.stop() }
        let client = try FarmClient(endpoint: coordinator.endpoint)
        let unknown = "sha256:" + String(repeating: "2", count: 64)
        var submit = Submit(session: #"{"video": {"videoSegments": [{"source": "a.mp4"}]}}"#, files: ["a.mp4": unknown], paths: [:],
                            settings: EncoderSettings(), priority: 0)
        // Waited for: compiled and answered (here, that the media are missing).
        #expect(try client.submit(submit).missing == [unknown])
        // Its client's time is up before the coordinator could answer (the coordinator keeps
        // a second for the reply's way back): refused, nothing compiled or created.
        submit.answerWithin = 0.5
        #expect(throws: FarmError.self) { try client.submit(submit) }
        do {
            _ = try client.submit(submit)
        } catch let error as FarmError {
            #expect(error.code == .noAnswer && error.message.contains("nothing was created"), "\(error)")
        }
        #expect(try client.statusReply().jobs.isEmpty)
    }
}

/// `Idempotency-Key` (docs/api.md, "Retrying a submission"): a retry of a created job, or
/// of one still compiling, gets the first answer, never a second job; the key with another
/// request is refused.
@Suite struct IdempotencyTests {
    @Test func aRetryUnderTheSameKeyGetsTheFirstJob() throws {
        let dir = try TestEnvironment.scratchDirectory()
        #expect(try TestEnvironment.reel(["sample", "clip.mp4", "--duration", "1", "--size", "64x36"], in: dir).status == 0)
        let clip = dir.appendingPathComponent("clip.mp4")
        let id = try ContentID.of(file: clip.path)
        let coordinator = try CoordinatorThread(.scratch(in: dir))
        defer { coordinator.stop() }
        let endpoint = coordinator.endpoint
        let client = try FarmClient(endpoint: endpoint)
        try client.upload(clip, contentID: id)
        func request(key: String?, priority: Int = 0) -> Submit {
            var submit = Submit(session: #"{"video": {"videoSegments": [{"source": "clip.mp4"}]}}"#, files: ["clip.mp4": id], paths: [:],
                                settings: EncoderSettings(), priority: priority)
            submit.idempotencyKey = key
            return submit
        }
        let first = try #require(try client.submit(request(key: "order-1")).jobID)
        #expect(try client.submit(request(key: "order-1")).jobID == first)
        #expect(throws: FarmError.self) { try client.submit(request(key: "order-1", priority: 5)) }
        let other = try client.submit(request(key: nil)).jobID
        #expect(other != nil && other != first)

        // Two tries sent together, both compiled before either is created: one job.
        let replies = Mutex<[String?]>([])
        let group = DispatchGroup()
        let retried = request(key: "order-2")
        for _ in 0..<2 {
            group.enter()
            Thread {
                defer { group.leave() }
                let answer = try? FarmClient(endpoint: endpoint).submit(retried).jobID
                replies.withLock { $0.append(answer) }
            }.start()
        }
        group.wait()
        let both = replies.withLock { $0 }
        #expect(both.count == 2 && both[0] != nil && both[0] == both[1], "\(both)")
        #expect(try client.statusReply().jobs.count == 3)
    }
}
