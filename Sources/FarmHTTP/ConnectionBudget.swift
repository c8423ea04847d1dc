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
/// cannot take every tenant's; a connection that has not sent a whole request head
/// within `headerSeconds` is closed (a request trickled byte by byte holds nothing long),
/// and so is one whose request body stops coming (`BodyDeadline`).
public final class ConnectionBudget: Sendable {
    public let limit: Int
    public let perClient: Int
    public let headerSeconds: Int64
    public let body: BodyDeadline
    private let counts = Mutex<(total: Int, byAddress: [String: Int])>((0, [:]))

    public init(limit: Int, perClient: Int? = nil, headerSeconds: Int64 = 10, body: BodyDeadline = BodyDeadline()) {
        self.limit = limit
        self.perClient = max(1, min(limit, perClient ?? limit))
        self.headerSeconds = headerSeconds
        self.body = body
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
/// gets `503` to its first request and is closed, one whose first request head does not
/// arrive in time is closed, and so is one whose request body breaks its deadline.
final class ConnectionBudgetHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let budget: ConnectionBudget
    private var address = ""
    private var counted = false
    private var refused = false
    private var headerTimer: Scheduled<Void>?
    /// The request body being read, if one is unfinished.
    private var body: BodyDeadline.Progress?
    /// Since when the server has asked for more of the body and not had it, and the timer
    /// that closes the connection if none comes.
    private var waitingSince: NIODeadline?
    private var silenceTimer: Scheduled<Void>?
    private var closesAfterResponse = false

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
        silenceTimer?.cancel()
        if counted { budget.release(from: address) }
        counted = false
    }

    /// The server asks for more bytes: while a body is unfinished, the wait is timed (only
    /// the client's time counts, never the server's own backpressure).
    func read(context: ChannelHandlerContext) {
        if body != nil, waitingSince == nil {
            waitingSince = .now()
            let channel = context.channel
            silenceTimer = context.eventLoop.scheduleTask(in: .seconds(budget.body.silenceSeconds)) { channel.close(promise: nil) }
        }
        context.read()
    }

    /// A response written before its request's body has all come (a refusal: too large, past
    /// a share, not allowed) ends its connection once written, rather than reading the rest
    /// of a body that may trickle for ever only to drop it (a lingering close, as nginx's).
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            closesAfterResponse = body != nil
            context.write(data, promise: promise)
        case .end where closesAfterResponse:
            let channel = context.channel
            context.writeAndFlush(data).whenComplete { result in
                promise?.completeWith(result)
                channel.close(promise: nil)
            }
        default:
            context.write(data, promise: promise)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let since = waitingSince {
            body?.waited(NIODeadline.now() - since)
            waitingSince = nil
            silenceTimer?.cancel()
            silenceTimer = nil
        }
        switch unwrapInboundIn(data) {
        case .head:
            headerTimer?.cancel()
            headerTimer = nil
            body = BodyDeadline.Progress()
        case .body(let buffer):
            body?.received(buffer.readableBytes)
            if let body, budget.body.isTooSlow(body) {
                context.close(promise: nil)   // as nginx's client_body_timeout: the connection goes, and its slot
                return
            }
        case .end:
            body = nil
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

/// How a request body must keep coming (docs/operations.md, "Tenants"), as nginx's
/// `client_body_timeout` and Apache's `RequestReadTimeout … MinRate`: no silence longer than
/// `silenceSeconds` while the server waits for it, and, once it has waited that long in
/// all, at least `minBytesPerSecond` over the time waited. A body trickled a byte every
/// 5 s is closed within two silences; an upload from a slow phone (tens of kB/s) is not.
/// Only time the server spends asking for bytes counts: its own backpressure (a slow disk,
/// a busy coordinator) is never the client's fault.
public struct BodyDeadline: Sendable {
    public var silenceSeconds: Int64 = 10
    public var minBytesPerSecond = 1024

    public init(silenceSeconds: Int64 = 10, minBytesPerSecond: Int = 1024) {
        (self.silenceSeconds, self.minBytesPerSecond) = (max(1, silenceSeconds), max(0, minBytesPerSecond))
    }

    /// One body's bytes, and the time the server waited for them.
    struct Progress {
        private(set) var bytes = 0
        private(set) var waited = TimeAmount.zero

        mutating func received(_ count: Int) { bytes += count }
        mutating func waited(_ time: TimeAmount) { waited = waited + time }
    }

    func isTooSlow(_ body: Progress) -> Bool {
        let seconds = Double(body.waited.nanoseconds) / 1e9
        return seconds >= Double(silenceSeconds) && Double(body.bytes) < Double(minBytesPerSecond) * seconds
    }
}
