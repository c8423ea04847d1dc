import CZeroMQ
import Foundation
import Logging
import Synchronization

/// The ZAP handler (RFC 27) that makes CURVE authenticate: without one libzmq encrypts but
/// lets any client key in (docs/architecture.md, "C handles"). It answers on `inproc://zeromq.zap.01` in the
/// coordinator's context from its own thread, and admits only the allow-listed keys.
final class ZAPAuthenticator: Sendable {
    static let domain = "reelfarm"
    private let stopSignal = StopSignal()
    private let finished = DispatchSemaphore(value: 0)

    /// Binds the handler before returning, so it is in place before any server socket.
    init(context: ZMQContext, authorized: Set<String>, logger: Logger) throws {
        let ready = DispatchSemaphore(value: 0)
        let bindError = BindOutcome()
        let stop = stopSignal, finished = finished
        let thread = Thread {
            defer { finished.signal() }
            let socket: ZMQSocket
            do {
                socket = try ZMQSocket(context, .rep, sendTimeoutMillis: 1000)
                try socket.bind("inproc://zeromq.zap.01")
            } catch {
                bindError.set("\(error)")
                ready.signal()
                return
            }
            ready.signal()
            var refused: Set<String> = []
            while !stop.isRaised {
                guard (try? ZMQSocket.poll([socket], timeoutMillis: 100)[0]) == true,
                      let request = try? socket.receive() else { continue }
                let (reply, rejectedKey) = Self.answer(request, authorized: authorized)
                if let key = rejectedKey, refused.insert(key).inserted {
                    logger.warning("refused a connection: CURVE key \(key) is not in the authorized keys")
                }
                try? socket.send(reply.map { .bytes($0) })
            }
            socket.close()
        }
        thread.name = "zap"
        thread.start()
        ready.wait()
        if let error = bindError.value {
            throw CurveKeyError("cannot start the CURVE authenticator: \(error)")
        }
    }

    /// Ends the handler's thread and waits for it.
    func stop() {
        guard !stopSignal.isRaised else { return }
        stopSignal.raise()
        finished.wait()
    }

    deinit { stopSignal.raise() }

    /// A reply to one ZAP request: 200 for an allow-listed CURVE key, 400 otherwise.
    /// Returns the refused key (Z85) for the log.
    static func answer(_ request: [Data], authorized: Set<String>) -> (reply: [Data], rejectedKey: String?) {
        // version, request id, domain, address, identity, mechanism, credentials…
        guard request.count >= 6 else {
            return ([Data("1.0".utf8), Data(), Data("500".utf8), Data("malformed ZAP request".utf8), Data(), Data()], nil)
        }
        let requestID = request[1]
        let mechanism = String(decoding: request[5], as: UTF8.self)
        func reply(_ code: String, _ text: String, user: String = "") -> [Data] {
            [Data("1.0".utf8), requestID, Data(code.utf8), Data(text.utf8), Data(user.utf8), Data()]
        }
        guard mechanism == "CURVE", request.count >= 7, request[6].count == 32 else {
            return (reply("400", "CURVE required"), nil)
        }
        var text = [CChar](repeating: 0, count: 41)
        let encoded = request[6].withUnsafeBytes { raw in
            zmq_z85_encode(&text, raw.bindMemory(to: UInt8.self).baseAddress, 32)
        }
        guard encoded != nil else { return (reply("400", "bad key"), nil) }
        let key = String(cString: text)
        return authorized.contains(key) ? (reply("200", "OK", user: key), nil) : (reply("400", "key not authorized"), key)
    }
}

/// The bind error handed from the handler's thread to its creator.
private final class BindOutcome: Sendable {
    private let storage = Mutex<String?>(nil)
    func set(_ message: String) { storage.withLock { $0 = message } }
    var value: String? { storage.withLock { $0 } }
}
