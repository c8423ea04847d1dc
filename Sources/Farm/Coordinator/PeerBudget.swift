import Foundation

/// How many messages one peer may send in one turn of the coordinator's loop
/// (docs/operations.md, "Limits"). A worker or a client waits for each reply before its
/// next request, so a handful a turn is all they ever need; a peer past the budget is
/// flooding, and is cut off: its messages are dropped unread for a while, logged once.
struct PeerBudget {
    let messagesPerTurn: Int
    let cutOffSeconds: Double
    private var counts: [PeerID: Int] = [:]
    private var cutOff: [PeerID: Double] = [:]

    init(messagesPerTurn: Int = 200, cutOffSeconds: Double = 60) {
        self.messagesPerTurn = messagesPerTurn
        self.cutOffSeconds = cutOffSeconds
    }

    enum Verdict: Equatable {
        case accept
        /// Just went over: drop the peer now (and say so once).
        case cutOff
        /// Still cut off: drop the message without a word.
        case ignore
    }

    mutating func admit(_ peer: PeerID, now: Double) -> Verdict {
        if let until = cutOff[peer] {
            if now < until { return .ignore }
            cutOff[peer] = nil
        }
        counts[peer, default: 0] += 1
        guard counts[peer, default: 0] > messagesPerTurn else { return .accept }
        cutOff[peer] = now + cutOffSeconds
        counts[peer] = nil
        return .cutOff
    }

    /// A new turn: every peer's count starts again.
    mutating func newTurn() {
        counts.removeAll(keepingCapacity: true)
    }

    func isCutOff(_ peer: PeerID, now: Double) -> Bool {
        cutOff[peer].map { now < $0 } ?? false
    }
}
