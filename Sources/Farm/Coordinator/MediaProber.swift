import Foundation
import RenderEngine
import SessionKit
import Synchronization

/// Probes each upload once, when its last byte arrives, on a thread of its own (docs/
/// architecture.md, "Probes by content id"): a probe decodes a few frames (0.18 s for a
/// 1080p clip), which the loop must not wait for and a submission need not. The result
/// is kept in the store by content id, where the submission compiler finds it. A file that
/// is not media (a LUT, a look) simply has no probe. The thread has its own connection to
/// the store.
final class MediaProber: Sendable {
    private let requests = Inbox<(contentID: String, path: String)>()
    private let wake = DispatchSemaphore(value: 0)
    private let stop = StopSignal()

    /// Opens the thread's store connection (a failure fails the coordinator's start);
    /// `log` reports a probe that could not be kept.
    init(storePath: String, log: @escaping @Sendable (String) -> Void) throws {
        let opened = Mutex<(any Error)?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let (requests, wake, stop) = (requests, wake, stop)
        let thread = Thread {
            let store: JobStore
            do {
                store = try JobStore(path: storePath)
                ready.signal()
            } catch {
                opened.withLock { $0 = error }
                ready.signal()
                return
            }
            while !stop.isRaised {
                _ = wake.wait(timeout: .now() + .milliseconds(500))
                for (contentID, path) in requests.take() where !stop.isRaised {
                    Self.probe(contentID: contentID, path: path, store: store, log: log)
                }
            }
        }
        thread.name = "probes"
        thread.stackSize = 8 << 20
        thread.start()
        ready.wait()
        if let error = opened.withLock({ $0 }) { throw error }
    }

    func post(contentID: String, path: String) {
        requests.post((contentID, path))
        wake.signal()
    }

    func shutDown() {
        stop.raise()
        wake.signal()
    }

    static func probe(contentID: String, path: String, store: JobStore, log: (String) -> Void) {
        do {
            guard try store.probe(of: contentID) == nil else { return }
        } catch {
            log("could not read the probe of \(contentID): \(FileErrorText.describe(error))")
            return
        }
        // Not media, or media libav cannot read: the submission that names it says why.
        guard let info = try? MediaProbe.probe(path: path) else { return }
        do {
            try store.rememberProbe(info, of: contentID)
        } catch {
            log("could not keep the probe of \(contentID): \(FileErrorText.describe(error))")
        }
    }
}
