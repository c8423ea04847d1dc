import Foundation
import Logging
import RenderEngine
import SessionKit
import Synchronization

/// Delivers webhooks (docs/api.md, "Webhooks"): the deliveries that are due, each POSTed
/// with its signature; 2xx is delivered (never sent again), anything else is tried again
/// on `WebhookSchedule` for an hour. Its own thread owns its connection to the job store;
/// the POSTs run beside it, at most `parallel` at once and `perHost` to one receiver's
/// host, so a slow receiver delays only its own deliveries. Each POST goes through the
/// callback policy when it is sent (the host resolved and checked then, so a name that
/// later points inward is refused), follows no redirect, reads at most 16 KiB of the
/// answer, and is over within `timeout` seconds whatever the receiver does.
public final class WebhookDeliverer: Sendable {
    public struct Limits: Sendable {
        /// Seconds a delivery attempt may take in all: connecting, sending, the answer.
        public var timeout = 10.0
        /// Attempts in flight at once, and to any one receiver host.
        public var parallel = 16
        public var perHost = 2

        public init() {}
    }

    let store: StoreLocation
    let secret: Data
    /// The coordinator's loop: the store is opened once it turns (it made the tables).
    let coordinatorPulse: LoopPulse
    /// Deliveries start only while the coordinator beside it leads: on a shared store every
    /// coordinator has a deliverer, and one delivers (docs/operations.md, "A standby coordinator").
    let leading: Readiness?
    let logger: Logger
    let stop = StopSignal()
    let limits: Limits
    /// Sends the POSTs under the callback policy (`--allow-callback-host`).
    let client: OriginClient
    /// Attempts that finished, for the store's thread to record.
    private let finished = Inbox<Attempt>()
    private let wake = DispatchSemaphore(value: 0)
    /// The POSTs in flight, one thread each, made up front (Dispatch's pool adds threads slowly).
    private let posts: LaneThreads<SharedQueue<@Sendable () -> Void>>

    /// What a receiver did with one attempt.
    struct Attempt: Sendable {
        var delivery: WebhookDelivery
        var retryAt: Double?
        var status: Int?
        /// What the job's status shows: the same words for a closed port, a silent host
        /// and an unknown name, so the field is no port scanner.
        var error: String?
        /// The operator's log line.
        var detail: String
    }

    public init(store: StoreLocation, secret: Data, coordinatorPulse: LoopPulse, leading: Readiness? = nil, logger: Logger,
                policy: URLPolicy = URLPolicy(), limits: Limits = Limits()) {
        self.store = store
        self.leading = leading
        self.coordinatorPulse = coordinatorPulse
        self.secret = secret
        self.logger = logger
        self.limits = limits
        var connection = OriginClient.Limits()
        connection.connections = limits.parallel
        connection.connectTimeout = min(limits.timeout, connection.connectTimeout)
        client = OriginClient(policy: policy, limits: connection)
        // A state of nothing opens without fail.
        posts = try! LaneThreads(name: "webhook-posts", count: limits.parallel, queue: SharedQueue(), stackSize: 1 << 20,
                                 open: { _ in () }, handle: { _, post in post() })
    }

    public func stopDelivering() {
        stop.raise()
        posts.stop()
        wake.signal()
    }

    /// Runs until `stopDelivering()`. A store that cannot be opened ends it (and so the
    /// process: docs/operations.md, "Shutting down"); a round the store fails is logged and
    /// tried again, as the coordinator's own turns are, since deliveries wait in the store.
    public func run() throws {
        while coordinatorPulse.secondsSinceBeat == nil {
            if stop.isRaised { return }
            _ = wake.wait(timeout: .now() + .milliseconds(100))
        }
        let store = try JobStore(at: self.store)
        var inFlight: [String: String] = [:]   // delivery id → receiver host
        while !stop.isRaised {
            do {
                for attempt in finished.take() {
                    inFlight[attempt.delivery.id] = nil
                    try record(attempt, store: store)
                }
                if leading?.isReady != false {
                    try start(due: try store.dueWebhooks(now: Date().timeIntervalSince1970, limit: 64), inFlight: &inFlight, store: store)
                }
            } catch {
                logger.error("webhook deliveries wait: the job store failed (\(error)); trying again")
            }
            // Woken by a finished attempt; else a look at the store every half second.
            _ = wake.wait(timeout: .now() + .milliseconds(500))
        }
    }

    /// Starts each due delivery that is not in flight, while the bounds allow.
    private func start(due: [WebhookDelivery], inFlight: inout [String: String], store: JobStore) throws {
        for delivery in due where inFlight[delivery.id] == nil && inFlight.count < limits.parallel {
            let host = (try? MediaURL.parse(delivery.url).get())?.host ?? delivery.url
            guard inFlight.values.filter({ $0 == host }).count < limits.perHost else { continue }
            let now = Date().timeIntervalSince1970
            let retryAt = WebhookSchedule.next(after: delivery.attempts + 1, now: now, created: delivery.created)
            try store.beginWebhookAttempt(delivery, retryAt: retryAt)
            let body = try store.webhookBody(delivery)
            inFlight[delivery.id] = host
            let deliverer = self
            posts.queue.post {
                deliverer.finished.post(deliverer.attempt(delivery, body: body, retryAt: retryAt))
                deliverer.wake.signal()
            }
        }
    }

    private func record(_ attempt: Attempt, store: JobStore) throws {
        let delivery = attempt.delivery
        let delivered = attempt.status.map { (200..<300).contains($0) } ?? false
        let ids = LogIDs(job: delivery.jobID)
        let number = delivery.attempts + 1
        let target = MediaURL.redact(delivery.url)
        if delivered {
            logger.log(.info, "webhook \(delivery.event) delivered to \(target) (attempt \(number))", ids)
        } else {
            let now = Date().timeIntervalSince1970
            logger.log(.warning, "webhook \(delivery.event) to \(target) \(attempt.detail) (attempt \(number))"
                + (attempt.retryAt.map { "; again in \(max(0, Int($0 - now))) s" } ?? "; giving up after an hour"), ids)
        }
        try store.endWebhookAttempt(delivery, status: attempt.status, error: delivered ? nil : attempt.error, delivered: delivered,
                                    givenUp: !delivered && attempt.retryAt == nil, at: Date().timeIntervalSince1970)
    }

    /// One POST (on a thread of its own).
    func attempt(_ delivery: WebhookDelivery, body: Data, retryAt: Double?) -> Attempt {
        var attempt = Attempt(delivery: delivery, retryAt: retryAt, status: nil, error: nil, detail: "")
        let url: MediaURL
        switch MediaURL.parse(delivery.url) {
        case .success(let parsed): url = parsed
        case .failure(let why):
            (attempt.error, attempt.detail) = ("not a callback URL", "\(why)")
            return attempt
        }
        let headers = [
            "Content-Type: application/json", "User-Agent: reel-webhook/1", "X-Reel-Delivery: \(delivery.id)",
            "X-Reel-Event: \(delivery.event)",
            "X-Reel-Signature: " + WebhookSignature.header(body: body, secret: secret, timestamp: Int(Date().timeIntervalSince1970)),
            "Expect:",   // no 100-continue round trip for a small body
        ]
        switch client.post(body, to: url, headers: headers, timeout: limits.timeout) {
        case .success(let status):
            attempt.status = status
            attempt.detail = "answered \(status)"
            attempt.error = (200..<300).contains(status) ? nil : "answered \(status)"
        case .failure(let failure) where failure.kind == .refused:
            (attempt.error, attempt.detail) = ("refused by the farm's callback policy", failure.message)
        case .failure(let failure):
            (attempt.error, attempt.detail) = ("no answer within \(Int(limits.timeout)) s", failure.message)
        }
        return attempt
    }
}
