import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// Delivers webhooks (docs/api.md, "Webhooks"): every half second, the deliveries that
/// are due, each POSTed with its signature; 2xx is delivered (never sent again),
/// anything else is tried again on `WebhookSchedule` for an hour. Its own connection
/// to the job store, its own thread: a slow receiver never holds up the coordinator.
public final class WebhookDeliverer: Sendable {
    let storePath: String
    let secret: Data
    /// The coordinator's loop: the store is opened once it turns (it made the tables).
    let coordinatorPulse: LoopPulse
    let logger: Logger
    let stop = StopSignal()
    /// Seconds a receiver has to answer.
    let timeout: Double

    public init(storePath: String, secret: Data, coordinatorPulse: LoopPulse, logger: Logger, timeout: Double = 10) {
        self.storePath = storePath
        self.coordinatorPulse = coordinatorPulse
        self.secret = secret
        self.logger = logger
        self.timeout = timeout
    }

    public func stopDelivering() { stop.raise() }

    /// Runs until `stopDelivering()`. A store that cannot be opened ends it (and so the
    /// process: docs/operations.md, "Shutting down"); a round the store fails is logged and
    /// tried again, as the coordinator's own turns are, since deliveries wait in the store.
    public func run() throws {
        while coordinatorPulse.secondsSinceBeat == nil {
            if stop.isRaised { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let store = try JobStore(path: storePath)
        while !stop.isRaised {
            let now = Date().timeIntervalSince1970
            do {
                for delivery in try store.dueWebhooks(now: now) where !stop.isRaised {
                    try deliver(delivery, store: store)
                }
            } catch {
                logger.error("webhook deliveries wait: the job store failed (\(error)); trying again")
            }
            Thread.sleep(forTimeInterval: 0.5)
        }
    }

    func deliver(_ delivery: WebhookDelivery, store: JobStore) throws {
        let now = Date().timeIntervalSince1970
        let attempt = delivery.attempts + 1
        let retryAt = WebhookSchedule.next(after: attempt, now: now, created: delivery.created)
        try store.beginWebhookAttempt(delivery, retryAt: retryAt)
        let body = try store.webhookBody(delivery)
        let (status, error) = post(body, to: delivery)
        let delivered = status.map { (200..<300).contains($0) } ?? false
        let ids = LogIDs(job: delivery.jobID)
        if delivered {
            logger.log(.info, "webhook \(delivery.event) delivered to \(delivery.url) (attempt \(attempt))", ids)
        } else {
            let why = status.map { "answered \($0)" } ?? error ?? "no answer"
            logger.log(.warning, "webhook \(delivery.event) to \(delivery.url) \(why) (attempt \(attempt))"
                + (retryAt.map { "; again in \(Int($0 - now)) s" } ?? "; giving up after an hour"), ids)
        }
        try store.endWebhookAttempt(delivery, status: status, error: delivered ? nil : error, delivered: delivered,
                                    givenUp: !delivered && retryAt == nil, at: Date().timeIntervalSince1970)
    }

    private func post(_ body: Data, to delivery: WebhookDelivery) -> (status: Int?, error: String?) {
        guard let url = URL(string: delivery.url) else { return (nil, "not a URL") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("reel-webhook/1", forHTTPHeaderField: "User-Agent")
        request.setValue(delivery.id, forHTTPHeaderField: "X-Reel-Delivery")
        request.setValue(delivery.event, forHTTPHeaderField: "X-Reel-Event")
        request.setValue(WebhookSignature.header(body: body, secret: secret, timestamp: Int(Date().timeIntervalSince1970)),
                         forHTTPHeaderField: "X-Reel-Signature")
        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        URLSession.shared.dataTask(with: request) { _, response, error in
            outcome.set((response as? HTTPURLResponse)?.statusCode, error.map { "\($0.localizedDescription)" })
            done.signal()
        }.resume()
        done.wait()
        return outcome.get()
    }

    private final class OutcomeBox: @unchecked Sendable {   // set once before the semaphore is signalled
        private var value: (Int?, String?) = (nil, nil)
        func set(_ status: Int?, _ error: String?) { value = (status, error) }
        func get() -> (Int?, String?) { value }
    }
}
