import Foundation
import RenderEngine
import Synchronization

/// The I/O lane's own connection to the job store, for reads that would hold the loop for
/// milliseconds (docs/architecture.md, "The I/O lane"). Writes stay on the loop, in its
/// turn's transaction.
final class LaneStore: Sendable {
    private let store: Mutex<JobStore>

    init(path: String) throws {
        store = Mutex(try JobStore(path: path))
    }

    /// Which of `ids` (the results on disk, 10,000 of them at times) ended before `cutoff`.
    func ended(before cutoff: Double, among ids: [String]) throws -> [(id: String, finished: Double)] {
        try store.withLock { try $0.ended(before: cutoff, among: ids) }
    }

    /// The pinned URL sources of a stored job, from its plan (a finished job's pictures; a
    /// running one's plan is in memory).
    func origins(ofJob id: String) throws -> [String: OriginObject] {
        guard let text = try store.withLock({ try $0.spec(of: id) }) else { return [:] }
        return try JobSpec.decode(Data(text.utf8)).files.compactMapValues(\.origin)
    }
}
