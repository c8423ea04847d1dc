import CZeroMQ
import Foundation

/// One libzmq socket, used from one thread only. Every socket gets a bounded linger,
/// a receive size limit and, for ROUTER, `ZMQ_ROUTER_MANDATORY` with a send timeout, so
/// that nothing is dropped silently and nothing blocks forever (docs/architecture.md, "C handles").
public final class ZMQSocket {
    public enum Kind {
        case router, dealer, pair, rep

        var raw: Int32 {
            switch self {
            case .router: return ZMQ_ROUTER
            case .dealer: return ZMQ_DEALER
            case .pair: return ZMQ_PAIR
            case .rep: return ZMQ_REP
            }
        }
    }

    let handle: UnsafeMutableRawPointer
    private let context: ZMQContext
    private var closed = false

    /// Messages bigger than this disconnect the peer (64 MiB: payloads travel in blocks).
    public static let maximumMessageSize: Int64 = 64 << 20

    public init(_ context: ZMQContext, _ kind: Kind, sendTimeoutMillis: Int32 = 5000) throws {
        guard let socket = zmq_socket(context.handle, kind.raw) else {
            throw ZMQError(code: zmq_errno(), function: "zmq_socket")
        }
        handle = socket
        self.context = context
        try set(ZMQ_LINGER, Int32(1000))
        try set(ZMQ_MAXMSGSIZE, Self.maximumMessageSize)
        try set(ZMQ_SNDTIMEO, sendTimeoutMillis)
        if kind == .router { try set(ZMQ_ROUTER_MANDATORY, Int32(1)) }
    }

    deinit {
        if !closed { zmq_close(handle) }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        zmq_close(handle)
    }

    public func set(_ option: Int32, _ value: Int32) throws {
        var v = value
        try zmqCheck(zmq_setsockopt(handle, option, &v, MemoryLayout<Int32>.size), "zmq_setsockopt(\(option))")
    }

    public func set(_ option: Int32, _ value: Int64) throws {
        var v = value
        try zmqCheck(zmq_setsockopt(handle, option, &v, MemoryLayout<Int64>.size), "zmq_setsockopt(\(option))")
    }

    public func set(_ option: Int32, bytes: [UInt8]) throws {
        try zmqCheck(zmq_setsockopt(handle, option, bytes, bytes.count), "zmq_setsockopt(\(option))")
    }

    public func bind(_ endpoint: String) throws {
        try zmqCheck(zmq_bind(handle, endpoint), "zmq_bind(\(endpoint))")
    }

    public func connect(_ endpoint: String) throws {
        try zmqCheck(zmq_connect(handle, endpoint), "zmq_connect(\(endpoint))")
    }

    /// A PAIR socket that receives this socket's `events` (`ZMQ_EVENT_*`) as libzmq's
    /// monitor messages; read them with `monitorEvent()`.
    public func monitor(events: Int32) throws -> ZMQSocket {
        let address = "inproc://monitor-\(UInt64.random(in: 0...UInt64.max))"
        try zmqCheck(zmq_socket_monitor(handle, address, events), "zmq_socket_monitor")
        let pair = try ZMQSocket(context, .pair)
        try pair.connect(address)
        return pair
    }

    /// The next event on a monitor socket (non-blocking): its `ZMQ_EVENT_*` number.
    public func monitorEvent() throws -> Int32? {
        guard let frames = try receive(), let first = frames.first, first.count >= 2 else { return nil }
        return Int32(first[first.startIndex]) | Int32(first[first.startIndex + 1]) << 8
    }

    /// The endpoint actually bound (resolves `tcp://127.0.0.1:*`).
    public var lastEndpoint: String {
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size)
        return String(cString: buffer)
    }

    /// Sends a multipart message. Small frames are copied; `OwnedBuffer` frames go out
    /// without a copy and are released by libzmq when sent.
    public func send(_ frames: [Frame]) throws {
        for (i, frame) in frames.enumerated() {
            let flags: Int32 = i < frames.count - 1 ? ZMQ_SNDMORE : 0
            var message = zmq_msg_t()
            switch frame {
            case .bytes(let data):
                try zmqCheck(zmq_msg_init_size(&message, data.count), "zmq_msg_init_size")
                if !data.isEmpty {
                    data.withUnsafeBytes { src in
                        zmq_msg_data(&message).copyMemory(from: src.baseAddress!, byteCount: data.count)
                    }
                }
            case .owned(let buffer):
                let retained = Unmanaged.passRetained(buffer).toOpaque()
                let code = zmq_msg_init_data(&message, buffer.pointer.baseAddress, buffer.count, { _, hint in
                    if let hint { Unmanaged<OwnedBuffer>.fromOpaque(hint).release() }
                }, retained)
                if code != 0 { Unmanaged<OwnedBuffer>.fromOpaque(retained).release() }
                try zmqCheck(code, "zmq_msg_init_data")
            }
            let sent = zmq_msg_send(&message, handle, flags)
            if sent < 0 {
                let error = ZMQError(code: zmq_errno(), function: "zmq_msg_send")
                zmq_msg_close(&message)
                throw error
            }
        }
    }

    /// Receives one multipart message; `nil` when nothing is waiting (non-blocking).
    public func receive() throws -> [Data]? {
        try receiveWithUser()?.frames
    }

    /// Receives one multipart message and the user id its peer's handshake proved (the
    /// ZAP handler's answer: a CURVE key), if any.
    public func receiveWithUser() throws -> (frames: [Data], userID: String?)? {
        var frames: [Data] = []
        var userID: String?
        while true {
            var message = zmq_msg_t()
            zmq_msg_init(&message)
            defer { zmq_msg_close(&message) }
            let flags: Int32 = frames.isEmpty ? ZMQ_DONTWAIT : 0
            let size = zmq_msg_recv(&message, handle, flags)
            if size < 0 {
                let code = zmq_errno()
                if code == EAGAIN && frames.isEmpty { return nil }
                throw ZMQError(code: code, function: "zmq_msg_recv")
            }
            frames.append(Int(size) >= ReceivedFrame.zeroCopySize ? ReceivedFrame.take(&message, size: Int(size))
                                                                    : Data(bytes: zmq_msg_data(&message), count: Int(size)))
            // Set on the frames that came from the peer (not on a ROUTER's identity frame).
            if userID == nil, let value = zmq_msg_gets(&message, "User-Id") {
                let text = String(cString: value)
                if !text.isEmpty { userID = text }
            }
            if zmq_msg_more(&message) == 0 { return (frames, userID) }
        }
    }

    /// Waits up to `timeoutMillis` for a message on any of `sockets`; returns the readable ones.
    public static func poll(_ sockets: [ZMQSocket], timeoutMillis: Int) throws -> [Bool] {
        var items = sockets.map { zmq_pollitem_t(socket: $0.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0) }
        let count = zmq_poll(&items, Int32(items.count), timeoutMillis)
        if count < 0 {
            if zmq_errno() == EINTR { return sockets.map { _ in false } }
            throw ZMQError(code: zmq_errno(), function: "zmq_poll")
        }
        return items.map { $0.revents & Int16(ZMQ_POLLIN) != 0 }
    }

    /// Like `poll(_:timeoutMillis:)`, also waking when `wakeup` is signalled (then drained).
    public static func poll(_ sockets: [ZMQSocket], wakeup: Wakeup, timeoutMillis: Int) throws -> [Bool] {
        var items = sockets.map { zmq_pollitem_t(socket: $0.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0) }
        items.append(zmq_pollitem_t(socket: nil, fd: wakeup.fileDescriptor, events: Int16(ZMQ_POLLIN), revents: 0))
        let count = zmq_poll(&items, Int32(items.count), timeoutMillis)
        if count < 0 {
            if zmq_errno() == EINTR { return sockets.map { _ in false } }
            throw ZMQError(code: zmq_errno(), function: "zmq_poll")
        }
        if let last = items.last, last.revents & Int16(ZMQ_POLLIN) != 0 { wakeup.drain() }
        return items.dropLast().map { $0.revents & Int16(ZMQ_POLLIN) != 0 }
    }

    public enum Frame {
        case bytes(Data)
        case owned(OwnedBuffer)

        public var byteCount: Int {
            switch self {
            case .bytes(let data): data.count
            case .owned(let buffer): buffer.count
            }
        }
    }
}

/// A large received frame handed over without a copy (a chunk, an upload block): the
/// `Data` reads ZeroMQ's own buffer, and the message is closed when the last `Data` that
/// shares it goes, on whichever thread that is (ZeroMQ messages, unlike sockets, may move
/// between threads). Copying 2 MiB frames on the coordinator's loop cost it about a
/// millisecond each (docs/benchmarks.md, "Loop lag").
final class ReceivedFrame: @unchecked Sendable {   // the message is read-only once taken
    static let zeroCopySize = 64 << 10
    private var message = zmq_msg_t()

    private init() { zmq_msg_init(&message) }

    deinit { zmq_msg_close(&message) }

    /// The bytes of `message`, which is left empty (closing it then frees nothing).
    static func take(_ message: inout zmq_msg_t, size: Int) -> Data {
        let frame = ReceivedFrame()
        zmq_msg_move(&frame.message, &message)
        guard let bytes = zmq_msg_data(&frame.message) else { return Data() }
        return Data(bytesNoCopy: bytes, count: size, deallocator: .custom { _, _ in withExtendedLifetime(frame) {} })
    }
}
