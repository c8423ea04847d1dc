import Foundation
import SessionKit

/// A peer's ZeroMQ routing id: who sent a message, and where a reply goes.
typealias PeerID = Data

/// What the coordinator keeps in memory about a connected worker.
struct WorkerState {
    var identity: PeerID
    var workerID: String
    var host: String
    var slots: Int
    var lastSeen: Double
    /// Codec → its encoder's fingerprint; `nil` when the worker did not say.
    var encoders: [String: String]? = nil
    /// The pools it serves (`reel worker --pool`): a job of a pool goes only to its
    /// workers; a job of none to any (docs/operations.md, "Pools").
    var pools: Set<String> = []
    /// Media bytes the coordinator has sent it, by content id: what its block cache holds
    /// (at most; it may have evicted some).
    var held: [String: HeldBytes] = [:]

    /// Bytes of `wanted` it holds.
    func holds(_ wanted: [String: HeldBytes]) -> Int {
        wanted.reduce(0) { total, entry in total + (held[entry.key]?.overlap(entry.value) ?? 0) }
    }
    /// Attempts it holds: given to it and not yet reported on.
    var running: Set<AttemptID> = []
    /// A send to it failed: it is dropped at the end of the turn, after what it sent before
    /// leaving (a drain's hand-backs, a last chunk) has been read.
    var unreachable = false

    var free: Int { unreachable ? 0 : slots - running.count }
}
