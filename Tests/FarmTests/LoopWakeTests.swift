import Foundation
import ReelTestSupport
import RenderEngine
import SessionKit
import Testing
@testable import Farm

/// What the coordinator's helper threads hand its loop wakes the loop at once: an
/// assembly's end, a compiled submission, a compile thread's probe request. Before, the
/// loop found them only at its next timer tick, up to 100 ms later — on a 2-s render that
/// was a tenth of the wall time (docs/benchmarks.md, "Starting a render"). Each test waits
/// for the wake-up itself (10 s at most), never for a time.
struct LoopWakeTests {
    /// Whether `wakeup` was signalled within `seconds`.
    private func woken(_ wakeup: Wakeup, within seconds: Double = 10) -> Bool {
        var item = pollfd(fd: wakeup.fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&item, 1, Int32(seconds * 1000)) == 1 && item.revents & Int16(POLLIN) != 0
    }

    @Test func anAssemblysAnswerWakesTheLoop() {
        let wakeup = try! Wakeup()
        let lane = AssemblyLane(wakes: wakeup) { _ in }
        defer { lane.shutDown() }
        #expect(!woken(wakeup, within: 0))
        lane.post(.finish(job: "j1"))   // never begun: answered at once, with its reason
        #expect(woken(wakeup))
        let answers = lane.finished.take()
        #expect(answers.map(\.job) == ["j1"] && answers.first?.error?.message.contains("never begun") == true, "\(answers)")
    }

    @Test func aCompiledSubmissionWakesTheLoop() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let storePath = dir.appendingPathComponent("farm.sqlite").path
        _ = try JobStore(path: storePath)   // the coordinator makes the tables before its compile threads open them
        let context = SubmissionCompiler.Context(stateDirectory: dir, catalog: MediaCatalog(directory: dir.appendingPathComponent("media"), roots: []),
                                                 looks: nil, strictLooks: false, acceptsCallbacks: false, callbackPolicy: URLPolicy(),
                                                 origins: OriginClient(policy: URLPolicy()))
        let wakeup = try Wakeup()
        let compiler = try SubmissionCompiler(context: context, store: .sqlite(path: storePath), threads: 1, wakes: wakeup)
        defer { compiler.shutDown() }
        let submit = Submit(session: #"{"video": {"videoSegments": []}}"#, files: [:], paths: [:], settings: EncoderSettings(), priority: 0)
        compiler.post(SubmissionCompiler.Request(identity: Data("peer".utf8), submit: submit, owner: "o"))
        #expect(woken(wakeup))
        let outcomes = compiler.take()
        guard outcomes.count == 1, case .answer(_, let refused) = outcomes[0] else {
            Issue.record("expected one answer, got \(outcomes)")
            return
        }
        #expect(!refused.problems.isEmpty, "an empty session passed: \(refused)")
    }

    @Test func aCompileThreadsProbeRequestWakesTheLoop() throws {
        let wakeup = try Wakeup()
        let probes = WorkerProbes(patience: 30, wakes: wakeup)
        let url = try MediaURL.parse("https://media.example/clip.mp4").get()
        let object = OriginObject(url: url, size: 100, etag: "e", lastModified: nil, contentType: nil)
        let answered = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = probes.probe(["sha256:1": (reference: url.string, object: object)])
            answered.signal()
        }
        thread.start()
        #expect(woken(wakeup))
        let asked = probes.take()
        #expect(asked.count == 1 && asked.first?.objects.keys.first == "sha256:1", "\(asked)")
        // No worker could: the compile thread goes on without waiting out its patience.
        if let token = asked.first?.token { probes.answer(token: token, contentID: "sha256:1", probe: nil) }
        #expect(answered.wait(timeout: .now() + 10) == .success)
    }
}
