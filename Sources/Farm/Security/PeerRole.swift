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

extension PeerCredentials {
    /// Who sent a message of `type` and whether its key may (docs/operations.md, "Trust"):
    /// nil without CURVE; the handshake admitted only listed keys, and the key's role
    /// decides what it may say.
    static func of(_ type: MessageType, userID: String?, curve: CurveServer?) throws(FarmError) -> PeerCredentials? {
        guard let curve else { return nil }
        guard let key = userID, let role = curve.authorized[key] else {
            throw FarmError(.unauthorized, "this connection has no authorized key")
        }
        guard role.may(send: type) else {
            throw FarmError(.forbidden, "a \(role.rawValue) key may not send \(type.rawValue)")
        }
        return PeerCredentials(key: key, role: role)
    }
}
