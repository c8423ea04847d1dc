import Farm
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import SessionKit

/// `reel coordinator --http ADDR` (docs/api.md): the farm over HTTP, versioned under
/// `/v1`, described by docs/api.yaml. Every route is a thin translation to the farm's
/// own protocol through `FarmGateway`; the coordinator decides.
public enum APIServer {
    public static func service(at address: HTTPAddress, gateway: FarmGateway, tokens: APITokens?,
                               uploads: URL, maxUpload: Int64 = APIRoutes.defaultMaxUpload, signer: URLSigner = .random(),
                               streams: JobEvents.Budget = .init(),
                               connections: ConnectionBudget = ConnectionBudget(limit: 2048), logger: Logger) -> some Service {
        HTTPService.make(HeadAsGet(inner: router(gateway: gateway, tokens: tokens, uploads: uploads, maxUpload: maxUpload, signer: signer,
                                                 streams: streams)), at: address,
                         idleSeconds: 60, connections: connections, announcing: "HTTP API", path: "/v1", logger: logger)
    }

    /// The API's routes and the dashboard, with the error middleware in front.
    static func router(gateway: FarmGateway, tokens: APITokens?, uploads: URL, maxUpload: Int64 = APIRoutes.defaultMaxUpload,
                       signer: URLSigner = .random(), streams: JobEvents.Budget = .init()) -> Router<BasicRequestContext> {
        let routes = APIRoutes(gateway: gateway, events: JobEvents(gateway: gateway, budget: streams), tokens: tokens, uploads: uploads,
                               maxUpload: maxUpload, signer: signer)
        let router = Router()
        router.add(middleware: FarmErrorMiddleware())
        router.add(middleware: MethodNotAllowedMiddleware())
        routes.add(to: router.group("v1"))
        // The dashboard: one self-contained page over this API (docs/api.md, "Dashboard").
        router.get("/") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.contentSecurityPolicy] = DashboardPage.contentSecurityPolicy
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: DashboardPage.html)))
        }
        return router
    }
}

/// Who is asking: a token's holder, or everyone (`nil` tokens: a loopback API without a
/// token file acts as admin).
struct Caller {
    let owner: String?
    let isAdmin: Bool
    /// For a signed URL: the token holder that made it (its `by`), whose shares its
    /// requests take as the holder's own would (docs/operations.md, "Tenants").
    var signer: String? = nil

    func may(see status: JobStatus) -> Bool { isAdmin || status.owner == owner }

    /// Whose share of the gateway's calls, pictures and uploads this caller's take
    /// (`Turns`, `ClientShares`): a token's holder, or the one that signed the URL; admins none.
    var share: String? { signer ?? (isAdmin ? nil : owner) }

    /// The owner a job must have for this caller to act on it, checked by the coordinator
    /// in the request itself (one round trip); nil for admins and signed URLs.
    var onBehalfOf: String? { isAdmin ? nil : owner }
}

public struct APIRoutes: Sendable {
    let gateway: FarmGateway
    let events: JobEvents
    let tokens: APITokens?
    let uploads: URL
    /// The largest file one upload may make (`--max-upload`; docs/operations.md, "Limits").
    let maxUpload: Int64
    public static let defaultMaxUpload: Int64 = 8 << 30
    let signer: URLSigner
    let uploadLocks = UploadLocks()
    let pictures = ClientShares(perClient: 8, what: "pictures")
    /// Request bodies streaming at once per client: trickling uploads hold a client's own
    /// connections, never every tenant's.
    let bodies = ClientShares(perClient: 32, what: "uploads")
    var partials: PartialUploads { PartialUploads(directory: uploads) }

    static let maxSessionBytes = 4 << 20

    func add(to group: RouterGroup<BasicRequestContext>) {
        group.post("jobs") { request, context in try await submit(request, context) }
        group.post("batches") { request, context in try await submit(request, context, batch: true) }
        group.get("batches/:id") { request, context in
            try json(try await batch(try context.parameters.require("id"), for: try authorize(request)))
        }
        group.get("jobs") { request, _ in try await list(request) }
        group.get("jobs/:id") { request, context in
            try json(try await job(try context.parameters.require("id"), for: try authorize(request)))
        }
        group.delete("jobs/:id") { request, context in
            let id = try context.parameters.require("id")
            let caller = try authorize(request)
            return try json(try await gateway.call(for: caller.share) { try $0.cancel(id, onBehalfOf: caller.onBehalfOf) })
        }
        group.patch("jobs/:id") { request, context in
            let id = try context.parameters.require("id")
            let caller = try authorize(request)
            var request = request
            // `priority` orders the job among its owner's own jobs; `farmPriority`, an admin's
            // only, puts it before every tenant's share (docs/operations.md, "Tenants").
            struct Change: Decodable { var priority: Int?; var farmPriority: Int? }
            let body = try await request.collectBody(upTo: 4096)
            guard let change = try? JSONDecoder().decode(Change.self, from: Data(buffer: body)),
                  (change.priority == nil) != (change.farmPriority == nil) else {
                return try problem("priority", "give one of priority (-1000 … 1000) and farmPriority (0 … 1000, admins)")
            }
            if let priority = change.priority, !(-1000...1000).contains(priority) {
                return try problem("priority", "must be an integer from -1000 to 1000, not \(priority)")
            }
            if let farm = change.farmPriority, !(0...1000).contains(farm) {
                return try problem("farmPriority", "must be an integer from 0 to 1000, not \(farm)")
            }
            let (priority, farmWide) = (change.priority ?? change.farmPriority ?? 0, change.farmPriority != nil)
            return try json(try await gateway.call(for: caller.share) {
                try $0.setPriority(id, priority, onBehalfOf: caller.onBehalfOf, farmWide: farmWide)
            })
        }
        group.get("jobs/:id/segments/:segment/thumbnail") { request, context in try await still(request, context, kind: .thumbnail) }
        group.get("jobs/:id/segments/:segment/frame") { request, context in try await still(request, context, kind: .frame) }
        group.get("jobs/:id/shards") { request, context in
            let id = try context.parameters.require("id")
            let caller = try authorize(request)
            return try json(try await gateway.call(for: caller.share) { try $0.shards(id, onBehalfOf: caller.onBehalfOf) })
        }
        group.get("jobs/:id/events") { request, context in
            let id = try context.parameters.require("id")
            let caller = try authorize(request)
            _ = try await job(id, for: caller)
            return try events(id, client: caller.owner ?? "(no token)", after: request.headers[APIRoutes.lastEventID])
        }
        group.get("jobs/:id/output") { request, context in
            try await download(request, context, part: .output, type: "video/mp4")
        }
        group.get("jobs/:id/sidecar") { request, context in
            try await download(request, context, part: .sidecar, type: "application/json")
        }
        group.get("workers") { request, _ in
            let caller = try authorize(request)
            return try json(try await gateway.call(for: caller.share) { try $0.workers() })
        }
        group.post("workers/:id/release") { request, context in
            let id = try context.parameters.require("id")
            let caller = try authorize(request)
            // The API's own key is an admin's: the check of the caller's role is here.
            guard caller.isAdmin else { throw APIRefusal(.forbidden, "only an admin token releases a worker from quarantine") }
            return try json(try await gateway.call(for: caller.share) { try $0.releaseWorker(id) })
        }
        group.post("jobs/:id/output-url") { request, context in try await signedURL(request, context, segment: nil) }
        group.get("jobs/:id/preview.m3u8") { request, context in try await previewPlaylist(request, context) }
        group.get("jobs/:id/preview/:name") { request, context in try await previewSegment(request, context) }
        group.post("jobs/:id/preview-url") { request, context in try await signedURL(request, context, segment: nil, preview: true) }
        group.post("jobs/:id/segments/:segment/thumbnail-url") { request, context in
            try await signedURL(request, context, segment: String(try Self.segment(context)), still: .thumbnail)
        }
        group.post("jobs/:id/segments/:segment/frame-url") { request, context in
            try await signedURL(request, context, segment: String(try Self.segment(context)), still: .frame)
        }
        group.put("media/:contentID") { request, context in try await upload(request, context) }
        group.head("media/:contentID") { request, context in try await mediaState(request, context) }
    }

    // MARK: Auth

    /// A read a browser may make without a token: a valid signed URL for this very path
    /// and parameters (docs/api.md, "Signed URLs"), else the bearer token as anywhere.
    func authorizeRead(_ request: Request) throws -> Caller {
        let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        // Checked with a token too: a malformed parameter is refused, never ignored.
        for (key, value) in query where key == "expires" && !(Int(value).map { (0...99_999_999_999).contains($0) } ?? false) {
            throw APIRefusal(.malformed, "expires=\(value.prefix(40)) is not Unix seconds from 0 to 99999999999")
        }
        if query.contains(where: { $0.0 == "signature" }) {
            guard signer.verifies(path: request.uri.path, query: query) else {
                throw APIRefusal(.forbidden, "the signed URL is not valid for this path, or has expired")
            }
            // The signature names this one resource, and (`by`, signed too) whose shares it takes.
            return Caller(owner: nil, isAdmin: true, signer: query.last { $0.0 == URLSigner.signerKey }?.1)
        }
        return try authorize(request)
    }

    func authorize(_ request: Request) throws -> Caller {
        guard let tokens else { return Caller(owner: nil, isAdmin: true) }
        guard let holder = tokens.holder(authorization: request.headers[.authorization]) else {
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = "Bearer realm=\"reel\""
            throw APIRefusal(.unauthorized, "a bearer token from the API's token file is required", headers: headers)
        }
        return Caller(owner: holder.owner, isAdmin: holder.role == .admin)
    }

    /// The job's status, if the caller may see it: 404 if there is none or it is another
    /// client's (docs/operations.md, "Tenants": an id tells nobody that it exists).
    func job(_ id: String, for caller: Caller) async throws -> JobStatus {
        guard let status = try await gateway.call(for: caller.share, { try $0.status(id).first }) else {
            throw FarmError(.noSuchJob, "no job \(id)")
        }
        guard caller.may(see: status) else { throw FarmError(.noSuchJob, "no job \(id)") }
        return status
    }

    // MARK: JSON

    func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, headers: HTTPFields = HTTPFields()) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    /// 422 `invalidInput` with every problem at its JSON path (`$` for the body as a whole).
    func problems(_ issues: [ValidationReport.Issue]) throws -> Response {
        let located = issues.map { Problem(path: $0.path.isEmpty ? "$" : $0.path, message: $0.message) }
        let summary = located.count == 1 ? located[0].description : "\(located.count) problems, the first \(located[0])"
        return try refusal(FarmError(.invalidInput, summary), problems: located)
    }

    /// A refusal with what it carries besides its code (`problems`, `missing`).
    func refusal(_ error: FarmError, problems: [Problem]? = nil, missing: [String]? = nil) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let body = try RefusalBody.encode(error, problems: problems, missing: missing)
        return Response(status: .init(code: error.code.httpStatus), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// 422 with one problem.
    func problem(_ path: String, _ message: String) throws -> Response {
        try problems([ValidationReport.Issue(path: path, message: message)])
    }
}
