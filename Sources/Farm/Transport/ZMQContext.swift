import CZeroMQ

/// A libzmq context. libzmq documents contexts as thread-safe (sockets are not), which is
/// why this one type is `@unchecked Sendable`.
public final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    public init() throws {
        guard let ctx = zmq_ctx_new() else { throw ZMQError(code: zmq_errno(), function: "zmq_ctx_new") }
        handle = ctx
    }

    deinit {
        // Every socket has a finite linger (see ZMQSocket), so this cannot hang.
        zmq_ctx_term(handle)
    }
}
