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
    private let requests: SharedQueue<(contentID: String, path: String)>
    private let thread: LaneThreads<SharedQueue<(contentID: String, path: String)>>

    /// Opens the thread's store connection (a failure fails the coordinator's start);
    /// `log` reports a probe that could not be kept.
    init(store location: StoreLocation, log: @escaping @Sendable (String) -> Void) throws {
        let requests = SharedQueue<(contentID: String, path: String)>()
        self.requests = requests
        thread = try LaneThreads(name: "probes", queue: requests, open: { _ in try JobStore(at: location) },
                                 handle: { store, request in Self.probe(contentID: request.contentID, path: request.path, store: store, log: log) })
    }

    func post(contentID: String, path: String) { requests.post((contentID, path)) }

    func shutDown() { thread.stop() }

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
