import Farm
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// HTTP connections a server holds at once (docs/operations.md, "Limits"). Each is a
/// descriptor, and the process's descriptors are shared with the farm socket, whose library
/// aborts when it cannot get one: past the budget a connection is answered `503` with
/// `Retry-After` and closed, so idle or slow clients can never use them up. One client
/// address holds at most `perClient` of them (nginx's `limit_conn` by address), so it
/// cannot take every tenant's; and a connection that has not sent a whole request head
/// within `headerSeconds` is closed (a request trickled byte by byte holds nothing long).
public final class ConnectionBudget: Sendable {
    public let limit: Int
    public let perClient: Int
    public let headerSeconds: Int64
    private let counts = Mutex<(total: Int, byAddress: [String: Int])>((0, [:]))

    public init(limit: Int, perClient: Int? = nil, headerSeconds: Int64 = 10) {
        self.limit = limit
        self.perClient = max(1, min(limit, perClient ?? limit))
        self.headerSeconds = headerSeconds
    }

    /// Connections held now.
    public var held: Int { counts.withLock { $0.total } }

    func take(from address: String) -> Bool {
        counts.withLock { counts in
            guard counts.total < limit, counts.byAddress[address, default: 0] < perClient else { return false }
            counts.total += 1
            counts.byAddress[address, default: 0] += 1
            return true
        }
    }

    func release(from address: String) {
        counts.withLock { counts in
            counts.total -= 1
            let left = counts.byAddress[address, default: 1] - 1
            counts.byAddress[address] = left > 0 ? left : nil
        }
    }

    /// One handler per connection, added to its pipeline after HTTP decoding.
    func handler() -> ConnectionBudgetHandler { ConnectionBudgetHandler(budget: self) }
}

/// Counts its connection against the budget while it lives; a connection over the budget
/// gets `503` to its first request and is closed, and one whose first request head does not
/// arrive in time is closed.
final class ConnectionBudgetHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let budget: ConnectionBudget
    private var address = ""
    private var counted = false
    private var refused = false
    private var headerTimer: Scheduled<Void>?

    init(budget: ConnectionBudget) { self.budget = budget }

    /// The refusal's body, as every refusal of the API has one (docs/api.md, "Errors").
    static let refusal = #"{"error":{"code":"\#(FarmErrorCode.unavailable.rawValue)","message":"the server holds all the connections it takes from this address or in all; retry after Retry-After"}}"#

    func handlerAdded(context: ChannelHandlerContext) {
        address = context.channel.remoteAddress?.ipAddress ?? ""
        counted = budget.take(from: address)
        let channel = context.channel
        headerTimer = context.eventLoop.scheduleTask(in: .seconds(budget.headerSeconds)) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headerTimer?.cancel()
        if counted { budget.release(from: address) }
        counted = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            headerTimer?.cancel()
            headerTimer = nil
        }
        guard !counted else { return context.fireChannelRead(data) }
        guard case .head = unwrapInboundIn(data), !refused else { return }
        refused = true
        var response = HTTPResponse(status: .init(code: FarmErrorCode.unavailable.httpStatus))
        response.headerFields[.retryAfter] = "5"
        response.headerFields[.connection] = "close"
        response.headerFields[.contentType] = "application/json"
        response.headerFields[.contentLength] = String(Self.refusal.utf8.count)
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: Self.refusal))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
