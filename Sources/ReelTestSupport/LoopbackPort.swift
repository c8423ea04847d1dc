import Foundation
import Synchronization

/// A TCP endpoint on loopback for a test's coordinator. Ports come from below Linux's
/// ephemeral range (32768–60999): a port in it may be taken at any moment by some
/// process's outgoing connection, which made a coordinator fail to bind now and then.
/// The port is checked free by binding it once, and is never handed out twice in one
/// test process: two tests that drew the same free port before either bound it made one
/// coordinator fail with "Address already in use".
public enum LoopbackPort {
    public static func endpoint() -> String { "tcp://127.0.0.1:\(free())" }

    private static let given = Mutex<Set<Int>>([])

    public static func free() -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20_000..<32_768)
            if canBind(port), given.withLock({ $0.insert(port).inserted }) { return port }
        }
        return Int.random(in: 20_000..<32_768)
    }

    private static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return bind(fd, port: port)
    }

    /// A listening socket on a free loopback port (a test's server), or nil.
    public static func listener(backlog: Int32 = 64) -> (fd: Int32, port: Int)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        for _ in 0..<50 {
            let port = free()
            if bind(fd, port: port), listen(fd, backlog) == 0 { return (fd, port) }
        }
        close(fd)
        return nil
    }

    /// Binds `fd` to 127.0.0.1:`port`.
    public static func bind(_ fd: Int32, port: Int) -> Bool {
        withAddress(port) { Glibc.bind(fd, $0, $1) == 0 }
    }

    /// Whether something accepts connections on 127.0.0.1:`port` (a server is ready).
    public static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return withAddress(port) { connect(fd, $0, $1) == 0 }
    }

    private static func withAddress<T>(_ port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
