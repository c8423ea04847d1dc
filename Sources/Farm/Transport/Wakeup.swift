import Foundation

/// Wakes an event loop blocked in `ZMQSocket.poll` from another thread: a non-blocking
/// pipe whose read end is polled next to the sockets. Render and still threads signal it
/// when a result is ready, so results leave without waiting out the poll timeout.
public final class Wakeup: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    public init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ZMQError(code: errno, function: "pipe") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// The descriptor to poll for reading.
    public var fileDescriptor: Int32 { readEnd }

    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)   // a full pipe already means "wake up"
    }

    /// Empties the pipe after a wake-up.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }
}
