import CZeroMQ
import Foundation
import Logging
import RenderEngine
import SessionKit
import Synchronization

extension Coordinator {
    /// Returns what the message was, for the turn's profile.
    func handle(_ frames: [Data], userID: String?) -> String {
        guard frames.count >= 2 else { return "short" }
        let identity = frames[0]
        switch budget.admit(identity, now: Self.now) {
        case .accept: break
        case .ignore: return "ignored"
        case .cutOff:
            logLimited("cut off", "cut off a peer that sent over \(budget.messagesPerTurn) messages in one turn: "
                + "its messages are dropped for \(Int(budget.cutOffSeconds)) s")
            if workers[identity] != nil { apply(scheduler.handle(.sendFailed(identity), now: Self.now)) }
            return "cut off"
        }
        let message: WireMessage
        do {
            message = try WireMessage.parse(Array(frames.dropFirst()))
        } catch let mismatch as FarmError where mismatch.code == .versionMismatch {
            log("refused a peer: \(mismatch)", level: .warning)
            send(to: identity, .refused, mismatch)
            return "refused"
        } catch {
            logLimited("malformed", "dropped a malformed message: \(error)")
            send(to: identity, .error, FarmError.from(error, fallback: .malformed))
            return "malformed"
        }
        let credentials: PeerCredentials?
        do {
            credentials = try PeerCredentials.of(message.type, userID: userID, curve: options.curve)
        } catch {
            let type = message.type.rawValue
            if error.code == .unauthorized {
                logLimited("no key", "refused \(type) from a peer without an authorized key")
            } else {
                let key = userID ?? "", role = options.curve?.authorized[key]?.rawValue ?? "unknown"
                logLimited("wrong role", "refused \(type) from \(role) key \(key)")
            }
            send(to: identity, .refused, error)
            return "refused"
        }
        apply(scheduler.handle(.heard(identity), now: Self.now))   // any message is a heartbeat
        do {
            try route(message, from: identity, credentials: credentials)
        } catch {
            refuse(message.type, from: identity, error)
        }
        return message.type.rawValue
    }

    /// One handler per family of messages (docs/protocol.md): a worker's, a client's
    /// submission and media, a client's jobs, thumbnails and frames.
    func route(_ message: WireMessage, from identity: Data, credentials: PeerCredentials?) throws {
        switch message.type {
        case .hello, .heartbeat, .chunk, .failed, .mediaRequest: try workerSaid(message, from: identity)
        case .submit, .upload, .adopt, .mediaQuery: try clientSent(message, from: identity, credentials: credentials)
        case .status, .watch, .cancel, .fetch, .deleteResult, .workers, .setPriority, .shards, .releaseWorker:
            try clientAsked(message, from: identity, credentials: credentials)
        case .stills, .jobStills, .stillsReply, .invalidate: try stillsMessage(message, from: identity, credentials: credentials)
        default:
            throw FarmError(.malformed, "unexpected \(message.type.rawValue) message")
        }
    }
}
