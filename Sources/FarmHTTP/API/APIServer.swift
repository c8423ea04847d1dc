import Crypto
import RenderEngine
import SessionKit
import Synchronization
import Farm
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle

/// `reel coordinator --http ADDR` (docs/api.md): the farm over HTTP, versioned under
/// `/v1`, described by docs/api.yaml. Every route is a thin translation to the farm's
/// own protocol through `FarmGateway`; the coordinator decides.
public enum APIServer {
    public static func service(at address: HTTPAddress, gateway: FarmGateway, tokens: APITokens?,
                               uploads: URL, logger: Logger) -> some Service {
        let routes = APIRoutes(gateway: gateway, tokens: tokens, uploads: uploads)
        let router = Router()
        routes.add(to: router.group("v1"))
        // The dashboard: one self-contained page over this API (docs/api.md, "Dashboard").
        router.get("/") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.contentSecurityPolicy] = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' blob:"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: DashboardPage.html)))
        }
        return Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: .seconds(60))),
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "reel"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port.map { HTTPAddress("\(address.host):\($0)") ?? address } ?? address
                logger.info("HTTP API on http://\(bound)/v1")
            },
            logger: logger)
    }
}

/// Who is asking: a token's holder, or everyone (`nil` tokens: a loopback API without a
/// token file acts as admin).
struct Caller {
    let owner: String?
    let isAdmin: Bool

    func may(see status: JobStatus) -> Bool { isAdmin || status.owner == owner }
}

struct APIRoutes: Sendable {
    let gateway: FarmGateway
    let tokens: APITokens?
    let uploads: URL
    let uploadLocks = UploadLocks()

    static let maxSessionBytes = 4 << 20

    func add(to group: RouterGroup<BasicRequestContext>) {
        group.post("jobs") { request, context in try await submit(request, context) }
        group.get("jobs") { request, _ in
            let caller = try authorize(request)
            let jobs = try await gateway.call { try $0.status() }.filter(caller.may(see:))
            return try json(jobs)
        }
        group.get("jobs/:id") { request, context in
            try json(try await job(try context.parameters.require("id"), for: try authorize(request)))
        }
        group.delete("jobs/:id") { request, context in
            let id = try context.parameters.require("id")
            _ = try await job(id, for: try authorize(request))
            return try json(try await gateway.call { try $0.cancel(id) })
        }
        group.patch("jobs/:id") { request, context in
            let id = try context.parameters.require("id")
            _ = try await job(id, for: try authorize(request))
            var request = request
            struct Change: Decodable { var priority: Int }
            let body = try await request.collectBody(upTo: 4096)
            guard let change = try? JSONDecoder().decode(Change.self, from: Data(buffer: body)), (-1000...1000).contains(change.priority) else {
                return try json(["problems": [Problem(path: "priority", message: "must be an integer from -1000 to 1000")]] as [String: [Problem]],
                                status: .unprocessableContent)
            }
            do {
                return try json(try await gateway.call { try $0.setPriority(id, change.priority) })
            } catch let failure as FarmClient.Failure where failure.description.contains("already ended") {
                throw HTTPError(.conflict, message: "job \(id) has already ended")
            }
        }
        group.get("jobs/:id/segments/:segment/thumbnail") { request, context in try await thumbnail(request, context) }
        group.get("jobs/:id/shards") { request, context in
            let id = try context.parameters.require("id")
            _ = try await job(id, for: try authorize(request))
            return try json(try await gateway.call { try $0.shards(id) })
        }
        group.get("jobs/:id/events") { request, context in
            let id = try context.parameters.require("id")
            _ = try await job(id, for: try authorize(request))
            return events(id)
        }
        group.get("jobs/:id/output") { request, context in
            try await download(request, context, part: "output", type: "video/mp4")
        }
        group.get("jobs/:id/sidecar") { request, context in
            try await download(request, context, part: "sidecar", type: "application/json")
        }
        group.get("workers") { request, _ in
            _ = try authorize(request)
            return try json(try await gateway.call { try $0.workers() })
        }
        group.put("media/:contentID") { request, context in try await upload(request, context) }
        group.head("media/:contentID") { request, context in try await mediaState(request, context) }
    }

    // MARK: Auth

    func authorize(_ request: Request) throws -> Caller {
        guard let tokens else { return Caller(owner: nil, isAdmin: true) }
        guard let holder = tokens.holder(authorization: request.headers[.authorization]) else {
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = "Bearer realm=\"reel\""
            throw HTTPError(.unauthorized, headers: headers, message: "a bearer token from the API's token file is required")
        }
        return Caller(owner: holder.owner, isAdmin: holder.role == .admin)
    }

    /// The job's status, if the caller may see it: 404 if there is none, 403 if it is
    /// another client's.
    func job(_ id: String, for caller: Caller) async throws -> JobStatus {
        let found: JobStatus?
        do {
            found = try await gateway.call { try $0.status(id).first }
        } catch let failure as FarmClient.Failure where failure.description.contains("no job") {
            found = nil
        }
        guard let status = found else { throw HTTPError(.notFound, message: "no job \(id)") }
        guard caller.may(see: status) else { throw HTTPError(.forbidden, message: "job \(id) is another client's") }
        return status
    }

    // MARK: Submit

    func submit(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let caller = try authorize(request)
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maxSessionBytes)
        let body: SubmitBody
        do {
            body = try SubmitBody.parse(Data(buffer: buffer))
        } catch let invalid as SubmitBody.Invalid {
            return try json(["problems": [Problem(path: invalid.path, message: invalid.message)]] as [String: [Problem]], status: .unprocessableContent)
        }
        let submit = Submit(session: body.session, files: body.files, paths: [:], settings: body.settings,
                            priority: body.priority, owner: caller.owner, callback: body.callback?.absoluteString)
        let reply = try await gateway.call { try $0.submit(submit) }
        if let id = reply.jobID {
            let status = try await job(id, for: caller)
            var headers = HTTPFields()
            headers[.location] = "/v1/jobs/\(id)"
            return try json(SubmittedJob(job: status, reusedShards: reply.reused ?? 0), status: .created, headers: headers)
        }
        if !reply.problems.isEmpty {
            return try json(["problems": reply.problems.map(Problem.init(line:))] as [String: [Problem]], status: .unprocessableContent)
        }
        return try json(["missing": reply.missing] as [String: [String]], status: .conflict)
    }

    struct Problem: Codable {
        var path: String
        var message: String

        init(path: String, message: String) {
            self.path = path
            self.message = message
        }

        /// `video.videoSegments[0].trimDuration: 4.2 s exceeds …` → path and message.
        init(line: String) {
            if let colon = line.range(of: ": "), !line[..<colon.lowerBound].contains(" ") {
                self.init(path: String(line[..<colon.lowerBound]), message: String(line[colon.upperBound...]))
            } else {
                self.init(path: "$", message: line)
            }
        }
    }

    struct SubmittedJob: Encodable {
        var job: JobStatus
        var reusedShards: Int
    }

    // MARK: Events

    /// Server-Sent Events: `progress` with the job's status on each change, then one
    /// event named after its final state, then the stream ends.
    func events(_ id: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        let stream = gateway.watch(id)
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            for try await status in stream {
                let name = status.isFinal ? status.state : "progress"
                let data = String(decoding: try encoder.encode(status), as: UTF8.self)
                try await writer.write(ByteBuffer(string: "event: \(name)\ndata: \(data)\n\n"))
                if status.isFinal { break }
            }
            try await writer.finish(nil)
        })
    }

    // MARK: Thumbnails

    /// `GET /v1/jobs/{id}/segments/{i}/thumbnail?time=SECONDS&size=WxH&format=jpeg|png`: the
    /// segment's oriented, filtered picture at `time` (default: its trim start) fit into
    /// the box (default 320x180, at most 400x400), made by the workers' stills path.
    func thumbnail(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        _ = try await job(id, for: try authorize(request))
        guard let segment = Int(try context.parameters.require("segment")), segment >= 0 else {
            throw HTTPError(.badRequest, message: "the segment is a number from 0")
        }
        let query = request.uri.queryParameters
        var time: SessionTime?
        if let text = query["time"].map(String.init) {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, let exact = SessionTime(seconds: seconds) else {
                throw HTTPError(.badRequest, message: "time=\(text) is not a number of seconds from 0")
            }
            time = exact
        }
        var box = Size(width: 320, height: 180)
        if let text = query["size"].map(String.init) {
            let parts = text.split(separator: "x").compactMap { Double($0) }
            guard parts.count == 2, parts.allSatisfy({ $0 >= 1 && $0 <= 400 }) else {
                throw HTTPError(.badRequest, message: "size=\(text) is not WxH of at most 400x400")
            }
            box = Size(width: parts[0], height: parts[1])
        }
        let png = query["format"].map(String.init) == "png"
        let still = StillRequest(kind: .thumbnail, segment: segment, time: time, box: box, png: png)
        let outcome = try await gateway.call { try $0.jobStills(id, [still]) }
        if let invalid = outcome.invalid { throw HTTPError(.unprocessableContent, message: invalid) }
        guard let picture = outcome.pictures.first?.1 else { throw HTTPError(.badGateway, message: "the farm sent no picture") }
        var headers = HTTPFields()
        headers[.contentType] = png ? "image/png" : "image/jpeg"
        headers[.cacheControl] = "private, max-age=3600"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: picture)))
    }

    // MARK: Downloads

    func download(_ request: Request, _ context: BasicRequestContext, part: String, type: String) async throws -> Response {
        let id = try context.parameters.require("id")
        let status = try await job(id, for: try authorize(request))
        guard status.state == "done" else { throw HTTPError(.conflict, message: "job \(id) is \(status.state), not done") }
        let first = try await gateway.call { try $0.fetchBlock(id, part: part, offset: 0, length: 0) }
        let size = first.total
        let range: ByteRange?
        do {
            range = try ByteRange.parse(request.headers[.range], size: size)
        } catch {
            var headers = HTTPFields()
            headers[.contentRange] = "bytes */\(size)"
            throw HTTPError(.rangeNotSatisfiable, headers: headers, message: "the range is outside the \(size)-byte file")
        }
        let start = range?.first ?? 0
        let count = range?.count ?? size
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.acceptRanges] = "bytes"
        if let range { headers[.contentRange] = "bytes \(range.first)-\(range.last)/\(size)" }
        let gateway = self.gateway
        return Response(status: range == nil ? .ok : .partialContent, headers: headers,
                        body: ResponseBody(contentLength: count) { writer in
            var offset = start
            let end = start + count
            while offset < end {
                let (at, length) = (offset, min(4 << 20, end - offset))
                let block = try await gateway.call { try $0.fetchBlock(id, part: part, offset: at, length: length) }
                guard !block.data.isEmpty else { break }
                try await writer.write(ByteBuffer(bytes: block.data.prefix(end - offset)))
                offset += block.data.count
            }
            try await writer.finish(nil)
        })
    }

    // MARK: Media

    /// `PUT /v1/media/{contentID}`, whole or in parts (docs/api.md, "Uploading media"): a part
    /// carries `Content-Range: bytes FIRST-LAST/TOTAL` and starts where the last one ended
    /// (`HEAD` says where: `Upload-Offset`). The bytes wait in a scratch file; once whole,
    /// and only if their SHA-256 is the content id, they go to the coordinator.
    func upload(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try authorize(request)
        let contentID = try Self.contentID(context)
        if try await gateway.call({ try $0.hasMedia(contentID) }) {
            return try json(UploadState(contentID: contentID, received: nil, present: true))
        }
        let range: ContentRange?
        do {
            range = try request.headers[.contentRange].map(ContentRange.parse)
        } catch {
            throw HTTPError(.badRequest, message: "Content-Range must be bytes FIRST-LAST/TOTAL")
        }
        guard uploadLocks.claim(contentID) else {
            throw HTTPError(.conflict, message: "another upload of \(contentID) is in progress")
        }
        defer { uploadLocks.release(contentID) }
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        let partial = uploads.appendingPathComponent(String(contentID.dropFirst("sha256:".count)) + ".part")
        let had = range == nil ? 0 : Self.size(of: partial)
        if let range, range.first != had {
            var headers = HTTPFields()
            headers[Self.uploadOffset] = "\(had)"
            return try json(UploadState(contentID: contentID, received: had, present: false), status: .conflict, headers: headers)
        }
        if range == nil || had == 0 {
            guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                throw HTTPError(.init(code: 507, reasonPhrase: "Insufficient Storage"), message: "cannot write the upload")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: partial.path) else {
            throw HTTPError(.init(code: 507, reasonPhrase: "Insufficient Storage"), message: "cannot write the upload")
        }
        var written = 0
        do {
            defer { try? handle.close() }
            try handle.seekToEnd()
            for try await buffer in request.body {
                let data = Data(buffer: buffer)
                if let range, written + data.count > range.count { throw HTTPError(.badRequest, message: "the body is longer than its Content-Range") }
                try handle.write(contentsOf: data)
                written += data.count
            }
            if let range, written != range.count {
                throw HTTPError(.badRequest, message: "the body has \(written) bytes, its Content-Range \(range.count)")
            }
        } catch {
            // What was not taken whole is taken back: the next part starts where this one did.
            try? FileHandle(forWritingAtPath: partial.path)?.truncate(atOffset: UInt64(had))
            throw error
        }
        let received = had + written
        if let range, received < range.total {
            var headers = HTTPFields()
            headers[Self.uploadOffset] = "\(received)"
            return try json(UploadState(contentID: contentID, received: received, present: false), status: .accepted, headers: headers)
        }
        defer { try? FileManager.default.removeItem(at: partial) }
        let digest = try ContentID.of(file: partial.path)
        guard digest == contentID else {
            throw HTTPError(.unprocessableContent, message: "the \(received) bytes uploaded hash to \(digest), not \(contentID)")
        }
        try await gateway.call { try $0.upload(partial, contentID: contentID) }
        return try json(UploadState(contentID: contentID, received: received, present: true), status: .created)
    }

    /// `HEAD /v1/media/{contentID}`: 200 when the coordinator has it; else 404 with the
    /// bytes of an unfinished upload in `Upload-Offset`.
    func mediaState(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try authorize(request)
        let contentID = try Self.contentID(context)
        if try await gateway.call({ try $0.hasMedia(contentID) }) { return Response(status: .ok) }
        var headers = HTTPFields()
        headers[Self.uploadOffset] = "\(Self.size(of: uploads.appendingPathComponent(String(contentID.dropFirst(7)) + ".part")))"
        return Response(status: .notFound, headers: headers)
    }

    struct UploadState: Encodable {
        var contentID: String
        var received: Int?
        var present: Bool
    }

    // A registered-style field name, valid by construction.
    static let uploadOffset = HTTPField.Name("Upload-Offset")!

    static func contentID(_ context: BasicRequestContext) throws -> String {
        let contentID = try context.parameters.require("contentID")
        guard contentID.hasPrefix("sha256:"), contentID.count == 71,
              contentID.dropFirst(7).allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw HTTPError(.badRequest, message: "'\(contentID)' is not a content id: sha256: and 64 lowercase hex digits")
        }
        return contentID
    }

    static func size(of url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    // MARK: JSON

    func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, headers: HTTPFields = HTTPFields()) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}

/// Content ids with an upload in progress: one at a time each.
final class UploadLocks: Sendable {
    private let busy = Mutex<Set<String>>([])

    func claim(_ id: String) -> Bool { busy.withLock { $0.insert(id).inserted } }
    func release(_ id: String) { _ = busy.withLock { $0.remove(id) } }
}
