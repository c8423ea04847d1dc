import Foundation
import RenderEngine
import SessionKit
import ReelTestSupport
import Synchronization
import Testing
@testable import Farm

/// A submission carries how long its client waits (`answerWithin`; docs/api.md,
/// "Submitting"): one the coordinator could not answer in that time is never created, so
/// a client that gave up (a 504) and retries does not get its first try rendered too.
@Suite struct SubmissionDeadlineTests {
    /// A batch compiles every variant before any job is made: its client waits longer, by
    /// its variants (10,000 of them made the API's 30 s a 504 every time).
    @Test func aBatchIsWaitedForLongerByItsVariants() {
        var submit = Submit(session: "{}", files: [:], paths: [:], settings: EncoderSettings(), priority: 0)
        #expect(submit.answerSeconds(usually: 30) == 30)
        submit.variants = (0..<10_000).map { BatchVariant(name: "v\($0)", replace: [:]) }
        #expect(abs(submit.answerSeconds(usually: 30) - 130) < 1e-9)
    }

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
