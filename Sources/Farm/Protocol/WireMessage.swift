import Foundation
import RenderEngine
import SessionKit

/// The farm's wire protocol (docs/protocol.md): every message is a JSON header frame
/// `{"v": 2, "type": "...", "body": {...}}` followed by zero or more binary payload frames.
public enum WireProtocol {
    /// `REEL_TEST_PROTOCOL_VERSION` overrides it, only so tests can play a peer of another version.
    public static let version = Int(ProcessInfo.processInfo.environment["REEL_TEST_PROTOCOL_VERSION"] ?? "") ?? 5
    /// Media and results travel in blocks well under libzmq's message limits.
    public static let blockSize = 4 << 20
}

/// One decoded message: its type, its body and its payload frames.
public struct WireMessage: Sendable {
    public var type: MessageType
    /// The whole header frame: `{"v":VERSION,"type":"…","body":{…}}`, compact JSON.
    private var headerFrame: Data
    public var payload: [Data]

    public init<Body: Encodable>(_ type: MessageType, _ body: Body, payload: [Data] = []) throws {
        self.type = type
        // The body is encoded once and spliced into the header: no re-serialisation.
        var frame = Data(#"{"v":\#(WireProtocol.version),"type":"\#(type.rawValue)","body":"#.utf8)
        frame.append(try JSONEncoder().encode(body))
        frame.append(UInt8(ascii: "}"))
        headerFrame = frame
        self.payload = payload
    }

    private struct Envelope: Decodable {
        var v: Int?
        var type: String?
    }

    private struct Enveloped<Body: Decodable>: Decodable {
        var body: Body
    }

    public func decode<Body: Decodable>(_ type: Body.Type) throws -> Body {
        do {
            return try JSONDecoder().decode(Enveloped<Body>.self, from: headerFrame).body
        } catch {
            throw FarmError(.malformed, "malformed \(self.type.rawValue) message: \(error)")
        }
    }

    /// The header frame.
    public func header() -> Data { headerFrame }

    /// Parses `[header, payload...]`; a peer speaking another version gets a clear error.
    public static func parse(_ frames: [Data]) throws -> WireMessage {
        guard let first = frames.first, let envelope = try? JSONDecoder().decode(Envelope.self, from: first) else {
            throw FarmError(.malformed, "not a ReelFarm message (no JSON header)")
        }
        guard let version = envelope.v else { throw FarmError(.malformed, "not a ReelFarm message (no protocol version)") }
        guard version == WireProtocol.version else { throw versionMismatch(theirs: version) }
        guard let typeName = envelope.type, let type = MessageType(rawValue: typeName) else {
            throw FarmError(.malformed, "unknown message type \(envelope.type ?? "nil")")
        }
        return WireMessage(type: type, headerFrame: first, payload: Array(frames.dropFirst()))
    }

    private init(type: MessageType, headerFrame: Data, payload: [Data]) {
        self.type = type
        self.headerFrame = headerFrame
        self.payload = payload
    }

    public var frames: [ZMQSocket.Frame] {
        [.bytes(headerFrame)] + payload.map { .bytes($0) }
    }
}

/// A peer of another protocol version: refused with a message that says what to do.
func versionMismatch(theirs: Int) -> FarmError {
    FarmError(.versionMismatch, "protocol version mismatch: peer speaks version \(theirs), this reel speaks version "
        + "\(WireProtocol.version); run the same reel release on the coordinator and its workers and clients")
}

public enum MessageType: String, Codable, Sendable {
    // worker ⇄ coordinator
    case hello, welcome, heartbeat, shard, chunk, failed, mediaRequest, mediaBlock, cancelShard
    // client ⇄ coordinator
    case submit, submitted, upload, uploaded, status, statusReply, watch, progress, cancel, fetch, resultBlock,
         workers, workersReply, deleteResult, shards, shardsReply, mediaQuery, mediaState, setPriority, jobStills, adopt,
         releaseWorker
    // thumbnails and frames: client → coordinator → worker and back; invalidation to every worker
    case stills, stillsReply, invalidate, invalidated
    // either way
    case refused, error
}

public struct Empty: Codable, Sendable {
    public init() {}
}
