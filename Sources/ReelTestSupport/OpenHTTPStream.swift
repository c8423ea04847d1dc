import Foundation

/// A raw HTTP/1.1 request on loopback whose response is read as it comes: for event streams
/// that a test keeps open, many at once, and closes when it wants, and for bodies sent as
/// slowly as a hostile client sends them.
public final class OpenHTTPStream {
    private let fd: Int32
    private var received = Data()

    /// Connects to `127.0.0.1:port` and sends `GET path`. `source`: the loopback address it
    /// connects from (any of 127/8: another client, to the server); `complete`: false sends
    /// the head without its final blank line, a request that never ends.
    public init(port: Int, path: String, method: String = "GET", headers: [String: String] = [:], source: String = "127.0.0.1",
                complete: Bool = true) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPTestError("socket: errno \(errno)") }
        if source != "127.0.0.1" {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(fd)
                throw HTTPTestError("bind to \(source): errno \(errno)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw HTTPTestError("connect to port \(port): errno \(errno)")
        }
        let lines = ["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)"] + headers.map { "\($0): \($1)" }
        let head = (lines + (complete ? ["", ""] : [""])).joined(separator: "\r\n")
        let bytes = Array(head.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else {
            close(fd)
            throw HTTPTestError("could not send the request")
        }
    }

    deinit { close(fd) }

    /// Sends more of the request (its body); false once the server has closed the connection.
    @discardableResult
    public func send(_ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let count = Foundation.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
    }

    /// Whether the server closes the connection within `seconds` (what it sent before is kept).
    public func closedByServer(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard left > 0 else { return false }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, left) > 0 else { return false }
            let count = Foundation.read(fd, &buffer, buffer.count)
            if count <= 0 { return true }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    /// Reads until the response so far contains `text`, for at most `seconds`.
    public func read(until text: String, seconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while String(decoding: received, as: UTF8.self).range(of: text) == nil {
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard left > 0 else { return false }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, left) > 0 else { return false }
            let count = Foundation.read(fd, &buffer, buffer.count)
            guard count > 0 else { return false }
            received.append(contentsOf: buffer[0..<count])
        }
        return true
    }

    public var text: String { String(decoding: received, as: UTF8.self) }
}
