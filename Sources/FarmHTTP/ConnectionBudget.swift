import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// HTTP connections a server holds at once (docs/operations.md, "Limits"). Each is a
/// descriptor, and the process's descriptors are shared with the farm socket, whose library
/// aborts when it cannot get one: past the budget a connection is answered `503` with
/// `Retry-After` and closed, so idle or slow clients can never use them up.
public final class ConnectionBudget: Sendable {
    public let limit: Int
    private let open = Atomic<Int>(0)

    public init(limit: Int) { self.limit = limit }

    /// Connections held now.
    public var held: Int { open.load(ordering: .relaxed) }

    func take() -> Bool {
        if open.wrappingAdd(1, ordering: .relaxed).newValue <= limit { return true }
        open.wrappingSubtract(1, ordering: .relaxed)
        return false
    }

    func release() { open.wrappingSubtract(1, ordering: .relaxed) }

    /// One handler per connection, added to its pipeline after HTTP decoding.
    func handler() -> ConnectionBudgetHandler { ConnectionBudgetHandler(budget: self) }
}

/// Counts its connection against the budget while it lives; a connection over the budget
/// gets `503` to its first request and is closed.
final class ConnectionBudgetHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let budget: ConnectionBudget
    private var counted = false
    private var refused = false

    init(budget: ConnectionBudget) { self.budget = budget }

    func handlerAdded(context: ChannelHandlerContext) {
        counted = budget.take()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if counted { budget.release() }
        counted = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !counted else { return context.fireChannelRead(data) }
        guard case .head = unwrapInboundIn(data), !refused else { return }
        refused = true
        var response = HTTPResponse(status: .serviceUnavailable)
        response.headerFields[.retryAfter] = "5"
        response.headerFields[.connection] = "close"
        response.headerFields[.contentLength] = "0"
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
