import CCurl
import Foundation
import SessionKit

/// One libcurl easy handle: it keeps its connections alive between requests (keep-alive to
/// an origin). The one place that frees the handle (docs/architecture.md, "C handles").
/// `@unchecked Sendable`: a handle is used by one thread at a time, which takes it from
/// `OriginClient`'s pool under the pool's lock and gives it back the same way.
final class CurlEasy: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer

    /// libcurl's global state, set up once before any handle (thread-safe: a static `let`).
    private static let initialised: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    init() throws {
        guard Self.initialised == CURLE_OK, let handle = curl_easy_init() else { throw EngineError("cannot start libcurl") }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// One HTTP exchange, no redirect followed.
    struct Request {
        var url: MediaURL
        var method: Method = .get
        /// Bytes asked for (`Range: bytes=a-b`).
        var range: Range<Int64>?
        var headers: [String] = []
        /// Where the host's name leads (checked by the policy): no second lookup is made.
        var addresses: [String] = []
        var connectTimeout: Double
        /// The request fails when fewer than 1 byte a second arrive for this long.
        var stallTimeout: Double
        var totalTimeout: Double
        /// Body bytes accepted; more fails the request (a hostile origin cannot fill memory).
        var bodyLimit: Int
        /// For `.put`: the file sent.
        var upload: String?
        /// For `.post`: the body sent.
        var postBody = Data()

        enum Method { case get, put, post }
    }

    struct Response {
        var status: Int
        /// Header names lowercased; the last value of a repeated header.
        var headers: [String: String]
        var body: Data
    }

    /// A failure below HTTP: libcurl's code and its words.
    struct TransferError: Error, CustomStringConvertible {
        let code: CURLcode
        let message: String
        /// The body outgrew `bodyLimit`.
        let overflowed: Bool
        /// The answer's status, when one arrived before the failure (0 if none).
        var status = 0
        var description: String { message }
        var timedOut: Bool { code == CURLE_OPERATION_TIMEDOUT }
        /// Connection refused, reset, timed out, cut short: worth trying again.
        var isTransient: Bool {
            [CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING,
             CURLE_PARTIAL_FILE, CURLE_COULDNT_RESOLVE_HOST, CURLE_SSL_CONNECT_ERROR, CURLE_HTTP2, CURLE_HTTP2_STREAM].contains(code)
        }
    }

    /// What the callbacks collect, owned by `perform` for the length of one transfer.
    private final class Exchange {
        var body = Data()
        var headers: [String: String] = [:]
        let limit: Int
        var overflowed = false
        init(limit: Int) { self.limit = limit }
    }

    func perform(_ request: Request) throws -> Response {
        curl_easy_reset(handle)   // keeps the live connections and the address cache
        let exchange = Exchange(limit: request.bodyLimit)
        var file: UnsafeMutablePointer<FILE>?
        defer { if let file { fclose(file) } }   // opened read-only: nothing to lose on close
        let context = Unmanaged.passUnretained(exchange).toOpaque()
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var lists: [UnsafeMutablePointer<curl_slist>] = []
        defer { for list in lists { curl_slist_free_all(list) } }
        func list(_ items: [String]) -> UnsafeMutablePointer<curl_slist>? {
            var list: UnsafeMutablePointer<curl_slist>?
            for item in items { list = curl_slist_append(list, item) }
            if let list { lists.append(list) }
            return list
        }
        return try errorText.withUnsafeMutableBufferPointer { text in
            var failed = CURLE_OK
            func set(_ result: CURLcode) { if failed == CURLE_OK { failed = result } }
            set(CCurl_setString(handle, CURLOPT_URL, request.url.string))
            set(CCurl_setString(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
            set(CCurl_setLong(handle, CURLOPT_FOLLOWLOCATION, 0))
            // The policy checked the origin's address; a proxy from the environment would bypass it.
            set(CCurl_setString(handle, CURLOPT_NOPROXY, "*"))
            set(CCurl_setLong(handle, CURLOPT_NOSIGNAL, 1))
            set(CCurl_setLong(handle, CURLOPT_TCP_KEEPALIVE, 1))
            set(CCurl_setString(handle, CURLOPT_USERAGENT, "ReelFarm/\(EngineVersion.engine)"))
            set(CCurl_setLong(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout * 1000)))
            set(CCurl_setLong(handle, CURLOPT_LOW_SPEED_LIMIT, 1))
            set(CCurl_setLong(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(request.stallTimeout.rounded(.up)))))
            set(CCurl_setLong(handle, CURLOPT_TIMEOUT_MS, Int(request.totalTimeout * 1000)))
            set(CCurl_setPointer(handle, CURLOPT_ERRORBUFFER, text.baseAddress))
            set(CCurl_setDataCallback(handle, CURLOPT_WRITEFUNCTION, Self.receiveBody))
            set(CCurl_setPointer(handle, CURLOPT_WRITEDATA, context))
            set(CCurl_setDataCallback(handle, CURLOPT_HEADERFUNCTION, Self.receiveHeader))
            set(CCurl_setPointer(handle, CURLOPT_HEADERDATA, context))
            if let range = request.range { set(CCurl_setString(handle, CURLOPT_RANGE, "\(range.lowerBound)-\(range.upperBound - 1)")) }
            if !request.headers.isEmpty { set(CCurl_setList(handle, CURLOPT_HTTPHEADER, list(request.headers))) }
            if !request.addresses.isEmpty, !IPAddressKind.isLiteral(request.url.host) {
                let pinned = request.addresses.map { $0.contains(":") ? "[\($0)]" : $0 }.joined(separator: ",")
                set(CCurl_setList(handle, CURLOPT_RESOLVE, list(["\(request.url.host):\(request.url.port):\(pinned)"])))
            }
            if request.method == .put, let path = request.upload {
                guard let opened = fopen(path, "rb") else {
                    throw TransferError(code: CURLE_READ_ERROR, message: "cannot read \(path): \(String(cString: strerror(errno)))", overflowed: false)
                }
                file = opened
                var info = stat()
                fstat(fileno(opened), &info)
                set(CCurl_setLong(handle, CURLOPT_UPLOAD, 1))
                set(CCurl_setPointer(handle, CURLOPT_READDATA, UnsafeMutableRawPointer(opened)))   // libcurl's own fread
                set(CCurl_setOffT(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(info.st_size)))
            }
            if request.method == .post {
                set(CCurl_setOffT(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.postBody.count)))
                // libcurl copies the bytes: they need not outlive this call.
                request.postBody.withUnsafeBytes { set(CCurl_setPointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))) }
            }
            guard failed == CURLE_OK else {
                throw TransferError(code: failed, message: "libcurl refused an option: \(String(cString: curl_easy_strerror(failed)))", overflowed: false)
            }
            let result = curl_easy_perform(handle)
            guard result == CURLE_OK else {
                let detail = String(cString: text.baseAddress.unsafelyUnwrapped)
                let words = detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail
                var error = TransferError(code: result, message: Self.withoutQuery(words), overflowed: exchange.overflowed)
                _ = CCurl_getLong(handle, CURLINFO_RESPONSE_CODE, &error.status)
                throw error
            }
            var status = 0
            set(CCurl_getLong(handle, CURLINFO_RESPONSE_CODE, &status))
            return Response(status: status, headers: exchange.headers, body: exchange.body)
        }
    }

    /// libcurl's messages may quote the URL: its query never reaches a log.
    private static func withoutQuery(_ text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: false).map { MediaURL.redact(String($0)) }.joined(separator: " ")
    }

    private static let receiveBody: CCurl_DataCallback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let exchange = Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue()
        let n = size * count
        guard exchange.body.count + n <= exchange.limit else {
            exchange.overflowed = true
            return 0   // aborts the transfer
        }
        exchange.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: n)
        return n
    }

    private static let receiveHeader: CCurl_DataCallback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let exchange = Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue()
        let n = size * count
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            exchange.headers = [:]   // a new response (after 100 Continue): its own headers
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].lowercased()
            exchange.headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return n
    }
}
