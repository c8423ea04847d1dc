import Foundation
import RenderEngine
import SessionKit
import Synchronization

/// Probes of URL media new to the farm, made by the workers (docs/architecture.md, "Probes
/// by content id"): a submission's compile thread hands its unknown objects over and waits;
/// the loop sends each object as a probe-only still request through the `StillsBroker`
/// (its worker ranked by the object's content id, as its pictures will be), so sixty new
/// clips are probed at once across the farm instead of two at a time on the coordinator.
/// What no worker answers in time is probed by the compile thread itself, as before.
final class WorkerProbes: Sendable {
    /// One compile thread's objects (content id → pinned object, with the reference the
    /// session names it by) and where the answers go.
    struct Asked: Sendable {
        let token: String
        let objects: [String: (reference: String, object: OriginObject)]
    }

    private final class Waiter: Sendable {
        let done = DispatchSemaphore(value: 0)
        let answers = Mutex<(probes: [String: MediaInfo], outstanding: Int)>(([:], 0))
    }

    private let asked: Inbox<Asked>
    private let waiters = Mutex<[String: Waiter]>([:])
    /// Seconds a compile thread waits for the workers before probing the rest itself.
    let patience: Double

    /// `wakes`: the loop's wakeup, signalled when a compile thread asks.
    init(patience: Double = 10, wakes loop: Wakeup? = nil) {
        self.patience = patience
        asked = Inbox(wakes: loop)
    }

    // MARK: The compile thread's side

    /// The probes the workers made of `objects` (content id → reference and object), as
    /// many as came within `patience`; an empty answer when nobody could.
    func probe(_ objects: [String: (reference: String, object: OriginObject)]) -> [String: MediaInfo] {
        guard !objects.isEmpty else { return [:] }
        let token = "p\(UInt64.random(in: 0...UInt64.max))"
        let waiter = Waiter()
        waiter.answers.withLock { $0.outstanding = objects.count }
        waiters.withLock { $0[token] = waiter }
        asked.post(Asked(token: token, objects: objects))
        _ = waiter.done.wait(timeout: .now() + patience)
        waiters.withLock { $0[token] = nil }   // a late answer finds nobody
        return waiter.answers.withLock { $0.probes }
    }

    // MARK: The loop's side

    /// What compile threads asked since the last turn.
    func take() -> [Asked] { asked.take() }

    /// One object's answer for the wait `token` (`nil`: no probe from the workers); the
    /// waiter wakes when its last object is answered. Only the content id asked is taken
    /// from the reply.
    func answer(token: String, contentID: String, probe: MediaInfo?) {
        guard let waiter = waiters.withLock({ $0[token] }) else { return }
        let finished = waiter.answers.withLock { answers in
            if let probe { answers.probes[contentID] = probe }
            answers.outstanding -= 1
            return answers.outstanding == 0
        }
        if finished { waiter.done.signal() }
    }

    /// The still request that asks a worker for one object's probe.
    static func request(reference: String, object: OriginObject, id: String) throws -> StillsRequest {
        let session = Session(video: SessionVideo(videoSegments: [SessionVideoSegment(source: reference)]))
        return StillsRequest(requestID: id, session: String(decoding: try SessionDocument.encode(session), as: UTF8.self),
                             files: [:], paths: [:], stills: [], origins: [reference: object], probe: true)
    }
}
