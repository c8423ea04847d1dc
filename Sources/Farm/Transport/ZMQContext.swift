import CZeroMQ

/// A libzmq context. libzmq documents contexts as thread-safe (sockets are not), which is
/// why this one type is `@unchecked Sendable`.
public final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    /// `maxSockets`: sockets the context may hold at once (libzmq's default is 1,023);
    /// a context shared by many connections needs more.
    public init(maxSockets: Int32? = nil) throws {
        guard let ctx = zmq_ctx_new() else { throw ZMQError(code: zmq_errno(), function: "zmq_ctx_new") }
        handle = ctx
        if let maxSockets, zmq_ctx_set(ctx, ZMQ_MAX_SOCKETS, maxSockets) != 0 {
            zmq_ctx_term(ctx)
            throw ZMQError(code: zmq_errno(), function: "zmq_ctx_set(ZMQ_MAX_SOCKETS)")
        }
    }

    deinit {
        // Every socket has a finite linger (see ZMQSocket), so this cannot hang.
        zmq_ctx_term(handle)
    }
}
