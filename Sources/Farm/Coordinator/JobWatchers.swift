import Foundation

/// Clients following jobs (`watch`): who follows which job, and when each job's followers
/// were last told, so progress goes out at most 5 times a second and the final status
/// always does.
struct JobWatchers {
    private var peers: [String: Set<PeerID>] = [:]
    private var lastTold: [String: Double] = [:]
    /// Progress to one job's followers at most this often.
    static let interval = 0.2

    mutating func add(_ peer: PeerID, to job: String) { peers[job, default: []].insert(peer) }

    /// Who to tell about `job` now: nobody if nobody follows it or it was told within the
    /// interval, unless `final` — then everybody, and the job's followers are forgotten.
    mutating func due(_ job: String, now: Double, final: Bool) -> Set<PeerID> {
        defer {
            if final {
                peers[job] = nil
                lastTold[job] = nil
            }
        }
        guard let watching = peers[job], !watching.isEmpty else { return [] }
        if !final, let last = lastTold[job], now - last < Self.interval { return [] }
        lastTold[job] = now
        return watching
    }
}
