import CZeroMQ
import Foundation

/// A failed libzmq call: the function and `zmq_strerror`'s text.
public struct ZMQError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let function: String

    public var description: String { "\(function): \(String(cString: zmq_strerror(code)))" }

    static var lastCode: Int32 { zmq_errno() }
    static let again = EAGAIN
    static let interrupted = EINTR
    static let hostUnreachable = EHOSTUNREACH
}

@discardableResult
func zmqCheck(_ result: Int32, _ function: @autoclosure () -> String) throws(ZMQError) -> Int32 {
    guard result >= 0 else { throw ZMQError(code: zmq_errno(), function: function()) }
    return result
}
