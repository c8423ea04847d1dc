import Crypto
import Foundation
import SessionKit
import Synchronization

/// An object at an origin as a job planned it (docs/operations.md, "Sources by URL"): the
/// URL with its credentials, and the version pinned when it was first read. Every later
/// read must find the same size and ETag (or Last-Modified), or the job fails: a render
/// never mixes two versions of a file.
public struct OriginObject: Codable, Sendable, Hashable {
    public var url: MediaURL
    public var size: Int64
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?

    public init(url: MediaURL, size: Int64, etag: String?, lastModified: String?, contentType: String?) {
        self.url = url
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
    }

    /// A name for this version of the object (the URL without credentials, the size and
    /// the version): the farm's caches and chunk reuse key on it as on a file's content id.
    /// Not a hash of the bytes, which the farm never reads whole.
    public var contentID: String {
        let text = "origin\n\(url.object)\n\(size)\n\(etag ?? "")\n\(lastModified ?? "")"
        return ContentID.prefix + SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The conditional header that makes the origin refuse another version (412).
    var condition: [String] {
        if let etag, !etag.hasPrefix("W/") { return ["If-Match: \(etag)"] }
        if let lastModified { return ["If-Unmodified-Since: \(lastModified)"] }
        return []
    }
}

/// Reads objects from origins by HTTP ranges (docs/operations.md, "Sources by URL"):
/// every host checked by the `URLPolicy` before a connection, redirects followed one by
/// one (each checked, at most `maxRedirects`), keep-alive connections from a bounded
/// pool, and 5xx, resets and timeouts tried again with doubling pauses, then reported.
public final class OriginClient: Sendable {
    public struct Limits: Sendable, Hashable {
        public var connectTimeout: Double = 10
        /// Seconds without a byte before a request is given up (and tried again).
        public var stallTimeout: Double = 30
        /// Seconds one read may take in all, its tries, pauses and redirects included
        /// (`--url-timeout`); a probe's reads together take no longer (`bounded`).
        public var readTimeout: Double = 30
        /// Seconds one upload (a PUT of the result) may take a try.
        public var requestTimeout: Double = 300
        public var attempts = 4
        public var firstPause: Double = 0.25
        public var maxRedirects = 5
        /// Connections open at once from this process (requests beyond wait for one).
        public var connections = 8
        /// Of those, to one host at once: an origin that hangs holds only its own share, and
        /// every other origin's reads and uploads go on (docs/operations.md, "Sources by URL").
        public var connectionsPerHost = 4
        /// Of those, for one tenant at once (`onBehalf(of:)`): a tenant whose uploads hang
        /// on many hosts holds only its own share.
        public var connectionsPerTenant = 4

        public init() {}
    }

    public let policy: URLPolicy
    public let limits: Limits
    /// The connections, shared with the clients `bounded` makes of this one.
    private let pool: Pool
    /// When every read of this client must be over (`bounded`), in uptime seconds.
    private let deadline: Double?
    /// Whose share of the connections this client's requests take (`onBehalf(of:)`).
    private let tenant: String?

    private final class Pool: Sendable {
        let idle = Mutex<[CurlEasy]>([])
        let slots: DispatchSemaphore
        let perHost: Int
        let perTenant: Int
        /// Connections of each share (a host's, a tenant's) now; waiters wait on `freed`.
        let shares = Mutex<[Share: Int]>([:])
        let freed = NSCondition()

        enum Share: Hashable {
            case host(String)
            case tenant(String)
        }

        init(connections: Int, perHost: Int, perTenant: Int) {
            slots = DispatchSemaphore(value: max(1, connections))
            self.perHost = max(1, min(perHost, connections))
            self.perTenant = max(1, min(perTenant, connections))
        }

        private func limit(_ share: Share) -> Int {
            switch share {
            case .host: perHost
            case .tenant: perTenant
            }
        }

        /// Takes one connection of every share in `wanted` at once, waiting while any is full.
        func take(_ wanted: [Share]) {
            freed.lock()
            defer { freed.unlock() }
            while !shares.withLock({ counts in
                guard wanted.allSatisfy({ counts[$0, default: 0] < limit($0) }) else { return false }
                for share in wanted { counts[share, default: 0] += 1 }
                return true
            }) { freed.wait() }
        }

        func release(_ taken: [Share]) {
            freed.lock()
            shares.withLock { counts in
                for share in taken {
                    let left = counts[share, default: 1] - 1
                    counts[share] = left > 0 ? left : nil
                }
            }
            freed.broadcast()
            freed.unlock()
        }
    }

    public init(policy: URLPolicy, limits: Limits = Limits()) {
        self.policy = policy
        self.limits = limits
        pool = Pool(connections: limits.connections, perHost: limits.connectionsPerHost, perTenant: limits.connectionsPerTenant)
        deadline = nil
        tenant = nil
    }

    private init(_ base: OriginClient, deadline: Double?, tenant: String?) {
        policy = base.policy
        limits = base.limits
        pool = base.pool
        self.deadline = deadline
        self.tenant = tenant
    }

    /// This client, its connections shared, taking `tenant`'s share of them (a farm's
    /// client, by its key or token): one tenant's hanging origins and upload targets hold
    /// at most `connectionsPerTenant`, whatever their hosts. `nil`: no tenant's share.
    public func onBehalf(of tenant: String?) -> OriginClient {
        OriginClient(self, deadline: deadline, tenant: tenant)
    }

    /// This client, its connections shared, with every read over within `seconds` from now
    /// in all: a probe's many reads are bounded as one (docs/operations.md, "Sources by URL").
    public func bounded(by seconds: Double? = nil) -> OriginClient {
        OriginClient(self, deadline: min(Self.uptime + (seconds ?? limits.readTimeout), deadline ?? .infinity), tenant: tenant)
    }

    static var uptime: Double { ProcessInfo.processInfo.systemUptime }

    /// Bytes asked for by the first request of an object: its header, usually.
    public static let firstRead = 64 << 10

    /// Reads the first bytes of `url` and pins its version.
    public func open(_ url: MediaURL) throws -> (OriginObject, first: Data) {
        let response = try exchange(url, range: 0..<Int64(Self.firstRead), condition: [])
        guard [200, 206].contains(response.status) else { throw Self.statusError(response.status, url) }
        let type = response.headers["content-type"]
        if let type, Self.isNotMedia(type) {
            throw OriginError(.notMedia, "\(url.redacted): the origin answered \(type), not media")
        }
        let size: Int64
        switch response.status {
        case 206:
            guard let range = ContentRange(response.headers["content-range"]), range.first == 0 else {
                throw OriginError(.status(206), "\(url.redacted): a partial answer without a usable Content-Range")
            }
            size = range.total
        default:
            size = Int64(response.body.count)   // 200: the whole object fitted in the first read
        }
        guard size > 0 else { throw OriginError(.status(response.status), "\(url.redacted): the object is empty") }
        let object = OriginObject(url: url, size: size, etag: response.headers["etag"], lastModified: response.headers["last-modified"],
                                  contentType: type)
        return (object, response.body)
    }

    /// Asks the origin, with `object`'s own URL and credential, whether it still serves the
    /// pinned version to that credential: one conditional read of the first byte. Throws
    /// the origin's refusal (403, 404, a changed version); returns how many seconds the
    /// answer may be trusted (its `Cache-Control` max-age, at most an hour; 0 without one).
    /// What a shared cache must do before it serves a picture of the object
    /// (docs/operations.md, "Sources by URL").
    public func revalidate(_ object: OriginObject) throws -> Double {
        let response = try exchange(object.url, range: 0..<1, condition: object.condition, expected: object)
        guard [200, 206].contains(response.status) else { throw Self.statusError(response.status, object.url) }
        return Self.freshness(response.headers["cache-control"])
    }

    /// Seconds an answer may be reused by `Cache-Control` (`s-maxage` before `max-age`,
    /// none under `no-cache` or `no-store`), at most an hour.
    static func freshness(_ header: String?) -> Double {
        guard let header else { return 0 }
        var directives: [String: String] = [:]
        for part in header.lowercased().split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = pair.first, !name.isEmpty else { continue }
            directives[name] = pair.count > 1 ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : ""
        }
        if directives["no-cache"] != nil || directives["no-store"] != nil { return 0 }
        guard let text = directives["s-maxage"] ?? directives["max-age"], let seconds = Double(text), seconds > 0 else { return 0 }
        return min(seconds, 3600)
    }

    /// The bytes of `range` of the pinned `object` (clipped to its size).
    public func read(_ object: OriginObject, _ range: Range<Int64>) throws -> Data {
        let range = range.clamped(to: 0..<object.size)
        guard !range.isEmpty else { return Data() }
        let response = try exchange(object.url, range: range, condition: object.condition, expected: object)
        return response.body
    }

    /// A small file named by URL (a `.cube` LUT, a lookup image) read whole into
    /// `directory`, named by its pinned version (read again only when that changes);
    /// refused past `limit` bytes.
    public func fetchWhole(_ url: MediaURL, into directory: URL, limit: Int64 = 64 << 20) throws -> URL {
        let (object, first) = try open(url)
        guard object.size <= limit else {
            throw OriginError(.status(413), "\(url.redacted): \(object.size) bytes, more than the \(limit) a filter file may have")
        }
        let name = String(object.contentID.dropFirst(ContentID.prefix.count)) + "." + URL(fileURLWithPath: url.object).pathExtension
        let file = directory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: file.path) { return file }
        var bytes = first
        if Int64(bytes.count) < object.size { bytes.append(try read(object, Int64(bytes.count)..<object.size)) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try bytes.write(to: file, options: .atomic)
        return file
    }

    /// Sends the file at `path` to `url` with a PUT (a presigned upload URL), retried like
    /// a read; returns the status.
    public func put(file path: String, to url: MediaURL, headers: [String]) throws -> Int {
        try withRetries(url) {
            let response = try self.follow(url, method: .put, range: nil, headers: headers, bodyLimit: 1 << 20, upload: path)
            guard (200..<300).contains(response.status) else {
                if Self.isTransient(response.status) { throw Retry.status(response.status) }
                throw Self.statusError(response.status, url)
            }
            return response.status
        }
    }

    /// One POST of `body` to `url` (a webhook): the address checked by the policy when it
    /// is sent, no redirect followed, no retry (the caller schedules those), everything over
    /// within `timeout` seconds, and at most `answerLimit` bytes of the answer read. The
    /// status, or why there is none: `.refused` by the policy, else `.unreachable`.
    public func post(_ body: Data, to url: MediaURL, headers: [String], timeout: Double, answerLimit: Int = 16 << 10)
        -> Result<Int, OriginError> {
        let addresses: [String]
        switch policy.addresses(for: url) {
        case .success(let checked): addresses = checked
        case .failure(let refused): return .failure(refused)
        }
        var request = CurlEasy.Request(url: url, method: .post, range: nil, headers: headers, addresses: addresses,
                                       connectTimeout: min(timeout, limits.connectTimeout), stallTimeout: timeout,
                                       totalTimeout: timeout, bodyLimit: answerLimit, upload: nil)
        request.postBody = body
        do {
            return .success(try withHandle(url.host) { try $0.perform(request) }.status)
        } catch let error as CurlEasy.TransferError {
            // An answer whose body outgrew the limit still answered: its status counts.
            if error.overflowed, error.status > 0 { return .success(error.status) }
            return .failure(OriginError(.unreachable, error.message))
        } catch {
            return .failure(OriginError(.unreachable, "\(error)"))
        }
    }

    // MARK: Requests

    private enum Retry: Error {
        case status(Int)
        case transfer(CurlEasy.TransferError)
        case shortBody(got: Int, expected: Int)
    }

    /// A GET of `range`, retried while the failure is transient; checked against `expected`.
    private func exchange(_ url: MediaURL, range: Range<Int64>, condition: [String], expected: OriginObject? = nil) throws -> CurlEasy.Response {
        let deadline = min(Self.uptime + limits.readTimeout, self.deadline ?? .infinity)
        return try withRetries(url, deadline: deadline) {
            let response = try self.follow(url, method: .get, range: range, headers: condition, bodyLimit: range.count, upload: nil,
                                           deadline: deadline)
            if let expected { try Self.check(response, range: range, against: expected) }
            if Self.isTransient(response.status) { throw Retry.status(response.status) }
            if response.status == 206, let got = ContentRange(response.headers["content-range"]) {
                let wanted = Int(min(got.total, range.upperBound) - got.first)
                if response.body.count < wanted { throw Retry.shortBody(got: response.body.count, expected: wanted) }
            }
            return response
        }
    }

    /// `deadline`: when the read must be over, tries and pauses included (nil for an upload,
    /// each of whose tries has `requestTimeout`).
    private func withRetries<T>(_ url: MediaURL, deadline: Double? = nil, _ body: () throws -> T) throws -> T {
        var pause = limits.firstPause
        var attempt = 1
        while true {
            do {
                return try body()
            } catch let retry as Retry {
                if let deadline, Self.uptime + pause >= deadline { throw Self.outOfTime(url, limits) }
                guard attempt < limits.attempts else {
                    let why = switch retry {
                    case .status(let status): "answered \(status) \(HTTPStatusText.phrase(status))"
                    case .transfer(let error) where error.timedOut: "timed out: no answer for \(Int(limits.stallTimeout)) s"
                    case .transfer(let error): error.message
                    case .shortBody(let got, let expected): "sent \(got) of \(expected) bytes and closed"
                    }
                    throw OriginError(.unreachable, "\(url.redacted): the origin \(why) (\(attempt) attempts)")
                }
                Thread.sleep(forTimeInterval: pause)
                pause *= 2
                attempt += 1
            }
        }
    }

    /// One request, redirects followed (each hop checked by the policy).
    private func follow(_ url: MediaURL, method: CurlEasy.Request.Method, range: Range<Int64>?, headers: [String],
                        bodyLimit: Int, upload: String?, deadline: Double? = nil) throws -> CurlEasy.Response {
        var current = url
        for _ in 0...limits.maxRedirects {
            let addresses = try policy.addresses(for: current).get()
            // A read's hop has what is left of the read's time (libcurl's own limit is per try).
            let left = deadline.map { $0 - Self.uptime } ?? limits.requestTimeout
            guard left > 0 else { throw Self.outOfTime(url, limits) }
            let request = CurlEasy.Request(url: current, method: method, range: range, headers: headers, addresses: addresses,
                                           connectTimeout: min(limits.connectTimeout, left), stallTimeout: min(limits.stallTimeout, left),
                                           totalTimeout: left, bodyLimit: bodyLimit, upload: upload)
            let response: CurlEasy.Response
            do {
                response = try withHandle(current.host) { try $0.perform(request) }
            } catch let error as CurlEasy.TransferError {
                if error.overflowed {
                    // A refusal's page (a 403's XML, a login form) can be longer than the
                    // bytes asked for: it is the origin's answer, said as such, not a range problem.
                    if error.status != 200 && error.status != 206 && error.status != 0 { throw Self.statusError(error.status, url) }
                    throw OriginError(.status(200), "\(url.redacted): the origin sent more than the \(bodyLimit) bytes asked for "
                        + "(it does not serve byte ranges)")
                }
                if error.isTransient { throw Retry.transfer(error) }
                throw OriginError(.unreachable, "\(url.redacted): \(error.message)")
            }
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"] else {
                return response
            }
            switch current.resolving(location) {
            case .success(let next): current = next
            case .failure(let error): throw OriginError(.status(response.status), "\(url.redacted): \(error)")
            }
        }
        throw OriginError(.status(310), "\(url.redacted): more than \(limits.maxRedirects) redirects")
    }

    /// A read that ran out of its time (`--url-timeout`), tries and pauses included.
    private static func outOfTime(_ url: MediaURL, _ limits: Limits) -> OriginError {
        let seconds = limits.readTimeout.rounded() == limits.readTimeout ? "\(Int(limits.readTimeout))" : "\(limits.readTimeout)"
        return OriginError(.unreachable, "\(url.redacted): the origin did not answer the read within \(seconds) s")
    }

    /// A connection to `host`: its host's and its tenant's shares first, then one of the pool's.
    private func withHandle<T>(_ host: String, _ body: (CurlEasy) throws -> T) throws -> T {
        let shares = [Pool.Share.host(host)] + (tenant.map { [Pool.Share.tenant($0)] } ?? [])
        pool.take(shares)
        defer { pool.release(shares) }
        pool.slots.wait()
        defer { pool.slots.signal() }
        let handle = try pool.idle.withLock { $0.popLast() } ?? CurlEasy()
        defer { pool.idle.withLock { $0.append(handle) } }
        return try body(handle)
    }

    // MARK: Answers

    private static func isTransient(_ status: Int) -> Bool { status >= 500 || status == 429 || status == 408 }

    /// An error page, a login form, a JSON or XML error: never media. (Other types are
    /// left to the probe: object stores often serve media as `application/octet-stream`,
    /// or whatever type the uploader gave.)
    static func isNotMedia(_ contentType: String) -> Bool {
        let type = contentType.lowercased()
        return ["text/html", "application/xhtml", "application/json", "application/xml", "text/xml"].contains { type.hasPrefix($0) }
    }

    private static func statusError(_ status: Int, _ url: MediaURL) -> OriginError {
        if status == 412 || status == 416 { return OriginError(.changed, "\(url.redacted): the object changed (the origin answered \(status))") }
        return OriginError(.status(status), "\(url.redacted): the origin answered \(status) \(HTTPStatusText.phrase(status))")
    }

    /// An answer to a read of a pinned object: the version pinned, the bytes asked for.
    private static func check(_ response: CurlEasy.Response, range: Range<Int64>, against object: OriginObject) throws {
        let url = object.url
        switch response.status {
        case 206:
            guard let got = ContentRange(response.headers["content-range"]) else {
                throw OriginError(.status(206), "\(url.redacted): a partial answer without a usable Content-Range")
            }
            if got.total != object.size {
                throw OriginError(.changed, "\(url.redacted): the object changed: \(got.total) bytes, pinned at \(object.size)")
            }
            if got.first != range.lowerBound {
                throw OriginError(.status(206), "\(url.redacted): asked for bytes from \(range.lowerBound), got them from \(got.first)")
            }
        case 200 where range == 0..<object.size:
            break
        case 200:
            throw OriginError(.status(200), "\(url.redacted): the origin does not serve byte ranges (it answered 200 to a Range request)")
        case _ where isTransient(response.status):
            return
        default:
            throw statusError(response.status, url)
        }
        if let pinned = object.etag, let etag = response.headers["etag"], etag != pinned {
            throw OriginError(.changed, "\(url.redacted): the object changed: ETag \(etag), pinned at \(pinned)")
        }
        if object.etag == nil, let pinned = object.lastModified, let modified = response.headers["last-modified"], modified != pinned {
            throw OriginError(.changed, "\(url.redacted): the object changed: Last-Modified \(modified), pinned at \(pinned)")
        }
    }
}

/// `Content-Range: bytes FIRST-LAST/TOTAL`.
struct ContentRange {
    let first: Int64
    let last: Int64
    let total: Int64

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        let parts = header.dropFirst(6).split(separator: "/")
        guard parts.count == 2, let total = Int64(parts[1]) else { return nil }
        let bounds = parts[0].split(separator: "-")
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]),
              first >= 0, first <= last, last < total else { return nil }
        (self.first, self.last, self.total) = (first, last, total)
    }
}

enum HTTPStatusText {
    static func phrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 412: "Precondition Failed"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}
