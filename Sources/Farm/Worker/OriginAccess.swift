import Foundation
import RenderEngine

/// Which credentials the origin has let read which pinned objects, and until when
/// (docs/operations.md, "Sources by URL"). A worker's pictures and open clips of a URL
/// source are keyed by the object's version, not by who asked: before it serves them to a
/// request, the request's own URL (with its credential) must have been accepted by the
/// origin within the answer's cache lifetime. Otherwise a request naming the same object
/// without the credential, or with another tenant's expired one, would read a picture
/// the origin never let it read. Used on one thread (the still thread).
final class OriginAccess {
    private let limit: Int
    /// SHA-256(URL with credential, version) → when the origin's answer goes stale (uptime).
    private var grants: [String: Double] = [:]

    init(limit: Int = 4096) { self.limit = limit }

    /// Passes when `object`'s credential was accepted for its version less than its
    /// lifetime ago, else asks the origin once (`OriginClient.revalidate`) and remembers
    /// the answer; throws the origin's refusal.
    func check(_ object: OriginObject, with client: OriginClient, now: Double = ProcessInfo.processInfo.systemUptime) throws {
        let key = Digest.sha256(Data((object.url.string + "\n" + object.contentID).utf8))
        if let until = grants[key], until > now { return }
        grants[key] = nil
        let lifetime = try client.revalidate(object)
        guard lifetime > 0 else { return }
        if grants.count >= limit { grants = grants.filter { $0.value > now } }
        if grants.count >= limit { grants.removeAll() }
        grants[key] = now + lifetime
    }
}
