import Synchronization
import HTTPTypes

/// Work of one kind in progress per API client (docs/operations.md, "Tenants"): past its
/// share a client's request is `429` with `Retry-After`, so 200 uncached 4096² frames of
/// one client cannot keep the workers' still threads from every other client, nor 2,000
/// trickling uploads its connections. The client is a token's holder, also when a signed
/// URL it made is the one asking; admins and a token-less loopback API are not counted.
final class ClientShares: Sendable {
    let perClient: Int
    /// What the share counts, for the refusal ("pictures", "uploads").
    let what: String
    private let busy = Mutex<[String: Int]>([:])

    init(perClient: Int, what: String) {
        self.perClient = max(1, perClient)
        self.what = what
    }

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

    /// Runs `body` holding one of `client`'s share (nil: not counted), or refuses with 429.
    func holding<T>(_ client: String?, _ body: () async throws -> T) async throws -> T {
        guard let client else { return try await body() }
        guard take(client) else {
            var headers = HTTPFields()
            headers[.retryAfter] = "1"
            throw APIRefusal(.tooManyRequests, "\(perClient) \(what) of this client are in progress; ask again when one is done",
                             headers: headers)
        }
        defer { release(client) }
        return try await body()
    }
}
