import Synchronization

/// Thumbnails and frames being made at once per API client (docs/operations.md, "Limits"):
/// past its share a token holder's picture request is `429` with `Retry-After`, so 200
/// uncached 4096² frames of one client cannot keep the workers' still threads from every
/// other client. Admins, the token-less loopback API and signed URLs (one resource each,
/// an `<img>` of a dashboard) are not counted.
final class PictureShares: Sendable {
    let perClient: Int
    private let busy = Mutex<[String: Int]>([:])

    init(perClient: Int = 8) { self.perClient = max(1, perClient) }

    /// Takes one of `client`'s share; false when it has none left.
    func take(_ client: String) -> Bool {
        busy.withLock { busy in
            guard busy[client, default: 0] < perClient else { return false }
            busy[client, default: 0] += 1
            return true
        }
    }

    func release(_ client: String) {
        busy.withLock { busy in
            let left = busy[client, default: 1] - 1
            busy[client] = left > 0 ? left : nil
        }
    }
}
