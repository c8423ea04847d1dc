import Foundation

/// What a CURVE key may do on the farm (docs/operations.md, "Trust"). Each key in the
/// allow-list has exactly one role; without CURVE (loopback or `--insecure`) every peer
/// may do everything.
public enum PeerRole: String, Sendable, CaseIterable {
    /// Renders: says hello, heartbeats, reads media of the work it holds, delivers results.
    case worker
    /// Submits and watches jobs; cancels and fetches its own.
    case client
    /// A client that may also cancel and fetch anyone's jobs.
    case admin

    /// Whether a peer of this role may send a message of this type at all.
    public func may(send type: MessageType) -> Bool {
        switch type {
        case .hello, .heartbeat, .chunk, .failed, .mediaRequest, .stillsReply:
            return self == .worker
        case .submit, .upload, .status, .watch, .cancel, .fetch, .deleteResult, .workers, .stills, .invalidate, .shards, .mediaQuery, .setPriority, .jobStills:
            return self == .client || self == .admin
        case .adopt:
            return self == .admin
        default:
            return false
        }
    }

    /// Whether this role may cancel or fetch a job submitted by `owner` (a key, or `nil`
    /// for a job submitted without CURVE), being `key` itself.
    public func mayManage(jobOwnedBy owner: String?, as key: String) -> Bool {
        self == .admin || (self == .client && owner == key)
    }
}

/// Who sent a message: the CURVE key the handshake proved and its role, or nobody in
/// particular on a farm without CURVE.
public struct PeerCredentials: Sendable, Equatable {
    public var key: String
    public var role: PeerRole
}
