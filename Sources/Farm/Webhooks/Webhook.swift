import Crypto
import Foundation

/// A job's end, told to the URL its submitter gave (docs/api.md, "Webhooks").
public struct WebhookDelivery: Equatable, Sendable {
    public var jobID: String
    /// `job.done`, `job.failed` or `job.cancelled`.
    public var event: String
    public var url: String
    public var attempts: Int
    /// When the job ended: retries stop an hour after.
    public var created: Double

    /// The id a receiver dedupes on: the same for every attempt at this event.
    public var id: String { "\(jobID):\(event)" }
}

/// `X-Reel-Signature: t=UNIX,v1=HEX`: HMAC-SHA256 with the coordinator's webhook secret
/// over `UNIX.BODY`. The receiver recomputes it and refuses a `t` older than a few
/// minutes, so a captured delivery cannot be replayed later.
public enum WebhookSignature {
    public static func header(body: Data, secret: Data, timestamp: Int) -> String {
        var message = Data("\(timestamp).".utf8)
        message.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: secret))
        return "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}

/// When to try again: 1 s, 5 s, 15 s, 1 min, 2 min, 5 min, then every 10 min, until an
/// hour has passed since the job ended.
public enum WebhookSchedule {
    static let delays: [Double] = [1, 5, 15, 60, 120, 300]
    public static let giveUpAfter = 3600.0

    /// After `attempts` failed attempts (≥ 1), the next time, or `nil` to give up.
    public static func next(after attempts: Int, now: Double, created: Double) -> Double? {
        let delay = attempts <= delays.count ? delays[max(0, attempts - 1)] : 600
        let at = now + delay
        return at - created > giveUpAfter ? nil : at
    }
}
