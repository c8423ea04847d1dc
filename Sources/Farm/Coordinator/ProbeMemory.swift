import Foundation
import RenderEngine
import SessionKit

/// Probes kept by content id (docs/architecture.md, "Probes by content id"), as the
/// submission compiler loads a session: what is kept is not probed again, and what it
/// probes is kept. Counts what a submission probed, for the trace. Used on one thread.
final class ProbeMemory {
    private let recall: (String) -> MediaInfo?
    private let keep: (String, MediaInfo) -> Void
    /// Media this submission probed, and the seconds its loading took when it probed any.
    private(set) var probed = 0
    private(set) var seconds = 0.0
    /// Media the workers probed for this submission (`adopt`).
    private(set) var probedOnWorkers = 0
    /// Probes already recalled or adopted, so `load` does not read them again.
    private var known: [String: MediaInfo] = [:]

    init(recall: @escaping (String) -> MediaInfo? = { _ in nil }, keep: @escaping (String, MediaInfo) -> Void = { _, _ in }) {
        self.recall = recall
        self.keep = keep
    }

    /// The store's memory: a probe that cannot be read or kept is made again next time.
    convenience init(store: JobStore) {
        self.init(recall: { (try? store.probe(of: $0)) ?? nil }, keep: { try? store.rememberProbe($1, of: $0) })
    }

    /// Whether a probe of `contentID` is kept (or was adopted).
    func knows(_ contentID: String) -> Bool {
        if known[contentID] == nil { known[contentID] = recall(contentID) }
        return known[contentID] != nil
    }

    /// Keeps probes the workers made (by content id), for the loading that follows.
    func adopt(_ probes: [String: MediaInfo]) {
        for (contentID, info) in probes where known[contentID] == nil {
            known[contentID] = info
            keep(contentID, info)
            probedOnWorkers += 1
        }
    }

    /// Loads through `make` with every kept probe of `contentIDs` (reference → content id)
    /// remembered, then keeps the probes it made.
    func load(contentIDs: [String: String], _ make: ([String: MediaInfo]) -> LoadedSession) -> LoadedSession {
        var remembered: [String: MediaInfo] = [:]
        for (reference, contentID) in contentIDs { remembered[reference] = known[contentID] ?? recall(contentID) }
        let started = Date()
        let loaded = make(remembered)
        var count = 0
        for (reference, status) in loaded.media where remembered[reference] == nil {
            guard case .available(let info) = status, let contentID = contentIDs[reference] else { continue }
            keep(contentID, info)
            count += 1
        }
        if count > 0 {
            probed += count
            seconds += Date().timeIntervalSince(started)
        }
        return loaded
    }
}
