import HTTPTypes
import Hummingbird

/// Which methods each API path answers (docs/api.yaml's paths): a request to a known path
/// with another method is `405 Method Not Allowed` with `Allow`, not `404` (docs/api.md,
/// "Errors"). `AllowedMethodsTests` checks the table against docs/api.yaml and the router.
enum AllowedMethods {
    /// Path templates under `/v1` (`:name` is one segment) and their methods.
    static let table: [(path: String, methods: [HTTPRequest.Method])] = [
        ("jobs", [.get, .post]),
        ("jobs/:id", [.get, .delete, .patch]),
        ("jobs/:id/segments/:segment/thumbnail", [.get]),
        ("jobs/:id/segments/:segment/frame", [.get]),
        ("jobs/:id/shards", [.get]),
        ("jobs/:id/events", [.get]),
        ("jobs/:id/output", [.get]),
        ("jobs/:id/sidecar", [.get]),
        ("jobs/:id/output-url", [.post]),
        ("jobs/:id/preview.m3u8", [.get]),
        ("jobs/:id/preview/:name", [.get]),
        ("jobs/:id/preview-url", [.post]),
        ("jobs/:id/segments/:segment/thumbnail-url", [.post]),
        ("jobs/:id/segments/:segment/frame-url", [.post]),
        ("batches", [.post]),
        ("batches/:id", [.get]),
        ("workers", [.get]),
        ("workers/:id/release", [.post]),
        ("media/:contentID", [.put, .head]),
    ]

    /// The methods of the template `path` (a path under `/v1`, without the prefix) matches, if any.
    static func methods(for path: Substring) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/")
        return table.first { entry in
            let template = entry.path.split(separator: "/")
            return template.count == segments.count && zip(template, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
        }?.methods
    }

    /// `Allow`: the methods, with HEAD wherever GET is (HTTP serves one for the other).
    static func allowHeader(_ methods: [HTTPRequest.Method]) -> String {
        var all = methods
        if all.contains(.get), !all.contains(.head) { all.append(.head) }
        return all.map(\.rawValue).joined(separator: ", ")
    }
}

/// Answers 405 with `Allow` where the router found the path but not the method.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let path = request.uri.path
            guard path.hasPrefix("/v1/"), let methods = AllowedMethods.methods(for: path.dropFirst(4)),
                  !methods.contains(request.method), !(request.method == .head && methods.contains(.get)) else { throw error }
            var headers = HTTPFields()
            headers[.allow] = AllowedMethods.allowHeader(methods)
            throw APIRefusal(.methodNotAllowed, "\(request.method.rawValue) is not a method of \(path): use \(AllowedMethods.allowHeader(methods))",
                             headers: headers)
        }
    }
}

/// HEAD wherever GET is (RFC 9110 §9.3.2): the GET route's status and headers, its
/// `Content-Length` among them, and no body. A player or a CDN asks a signed output URL
/// for its size this way before it reads ranges. In front of the router: the router finds
/// a route by method, so a middleware behind it would see HEAD already unrouted.
struct HeadAsGet<Inner: HTTPResponderBuilder>: HTTPResponderBuilder where Inner.Responder.Context == BasicRequestContext {
    let inner: Inner

    func buildResponder() -> Rewriting<Inner.Responder> { Rewriting(inner: inner.buildResponder()) }

    struct Rewriting<Routed: HTTPResponder<BasicRequestContext>>: HTTPResponder {
        let inner: Routed

        func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
            let path = request.uri.path
            guard request.method == .head, path.hasPrefix("/v1/"), let methods = AllowedMethods.methods(for: path.dropFirst(4)),
                  methods.contains(.get), !methods.contains(.head) else {
                return try await inner.respond(to: request, context: context)
            }
            var head = request.head
            head.method = .get
            // An event stream's GET subscribes to its job for as long as it is read: its HEAD
            // is the job's status GET (the same authorization, the same 404), told as a stream.
            if path.hasSuffix("/events") {
                head.path = String(path.dropLast("/events".count)) + (request.uri.query.map { "?" + $0 } ?? "")
                let status = try await inner.respond(to: Request(head: head, body: request.body), context: context)
                var headers = HTTPFields()
                headers[.contentType] = status.status == .ok ? "text/event-stream" : status.headers[.contentType]
                headers[.cacheControl] = "no-cache"
                return Response(status: status.status, headers: headers, body: ResponseBody())
            }
            let response = try await inner.respond(to: Request(head: head, body: request.body), context: context)
            var headers = response.headers
            if let length = response.body.contentLength { headers[.contentLength] = String(length) }
            return Response(status: response.status, headers: headers, body: ResponseBody())
        }
    }
}
