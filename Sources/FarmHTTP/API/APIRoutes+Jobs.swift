import Farm
import Foundation
import HTTPTypes
import Hummingbird
import RenderEngine

extension APIRoutes {
    // MARK: Submit

    /// `POST /v1/jobs`, and `POST /v1/batches` (`batch`; docs/api.md, "Batches").
    func submit(_ request: Request, _ context: BasicRequestContext, batch isBatch: Bool = false) async throws -> Response {
        let caller = try authorize(request)
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maxSessionBytes)
        let body: SubmitBody
        do {
            body = try SubmitBody.parse(Data(buffer: buffer), batch: isBatch)
        } catch let invalid as SubmitBody.Invalid {
            return try problem(invalid.path, invalid.message)
        }
        var submission = Submit(session: body.session, files: body.files, paths: [:], settings: body.settings,
                                priority: body.priority, owner: caller.owner, callback: body.callback?.absoluteString)
        // Media the caller has not sent are missing to it, whoever else sent them: the
        // coordinator checks its record of who has shown what.
        submission.holder = PartialUploads.holder(caller)
        if let key = request.headers[Self.idempotencyKey] {
            guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                return try problem("Idempotency-Key", "must be 1 … 255 visible ASCII characters")
            }
            submission.idempotencyKey = key
        }
        submission.outputURL = body.outputURL
        submission.sidecarURL = body.sidecarURL
        submission.replace = body.replace
        submission.variants = body.variants
        submission.pool = body.pool
        let submit = submission
        let reply = try await gateway.call(for: caller.share) { try $0.submit(submit) }
        // A large body's parse has passed (its objects freed on this thread's heap, after the
        // coordinator's compiler trimmed its own): give the pages back (docs/operations.md, "Limits").
        if buffer.readableBytes > 1 << 20 { HeapPolicy.releaseFreed() }
        if let batchID = reply.batchID {
            let status = try await batch(batchID, for: caller)
            var headers = HTTPFields()
            headers[.location] = "/v1/batches/\(batchID)"
            return try json(SubmittedBatch(batch: status, reusedShards: reply.reused ?? 0), status: .created, headers: headers)
        }
        if let id = reply.jobID {
            let status = try await job(id, for: caller)
            var headers = HTTPFields()
            headers[.location] = "/v1/jobs/\(id)"
            return try json(SubmittedJob(job: status, reusedShards: reply.reused ?? 0), status: .created, headers: headers)
        }
        if !reply.problems.isEmpty {
            return try problems(reply.problems)
        }
        return try refusal(FarmError(.missingMedia, "the farm lacks \(reply.missing.count) file(s): upload them and submit again"),
                           missing: reply.missing)
    }

    /// A retry under the same key gets the first answer (docs/api.md, "Retrying a submission").
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    /// A client that lost an event stream resumes after this event (docs/api.md, "Events").
    static let lastEventID = HTTPField.Name("Last-Event-ID")!

    struct SubmittedJob: Encodable {
        var job: JobStatus
        var reusedShards: Int
    }

    struct SubmittedBatch: Encodable {
        var batch: BatchStatus
        var reusedShards: Int
    }

    /// The batch's status, if the caller may see its jobs: 404 if there is none or it is
    /// another client's.
    func batch(_ id: String, for caller: Caller) async throws -> BatchStatus {
        guard let status = try await gateway.call(for: caller.share, { try $0.batchStatus(id) }) else {
            throw APIRefusal(.notFound, "no batch \(id.prefix(64))")
        }
        guard status.variants.allSatisfy(caller.may(see:)) else { throw APIRefusal(.notFound, "no batch \(id.prefix(64))") }
        return status
    }

    // MARK: Listing

    static let link = HTTPField.Name("Link")!

    /// A page of the caller's jobs (an admin's: everyone's), newest first: `limit` (1 …
    /// 1000, default 100) and `after` (the cursor of a `Link: …; rel="next"`).
    func list(_ request: Request) async throws -> Response {
        let caller = try authorize(request)
        let query = request.uri.queryParameters
        var limit = 100
        if let text = query["limit"] {
            guard let value = Int(String(text)), (1...1000).contains(value) else {
                throw APIRefusal(.malformed, "limit=\(text.prefix(20)) is not a number from 1 to 1000")
            }
            limit = value
        }
        let after = query["after"].map(String.init)
        let owner = caller.isAdmin ? nil : caller.owner
        let pageSize = limit
        let reply = try await gateway.call(for: caller.share) { try $0.statusReply(owner: owner, limit: pageSize, after: after) }
        var headers = HTTPFields()
        if let next = reply.next, let cursor = next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
            headers[Self.link] = "</v1/jobs?limit=\(limit)&after=\(cursor)>; rel=\"next\""
        }
        return try json(reply.jobs.filter(caller.may(see:)), headers: headers)
    }

    // MARK: Events

    /// Server-Sent Events: `progress` with the job's status on each change, then one
    /// event named after its final state, then the stream ends.
    /// `after`: the `Last-Event-ID` of a client that was following and lost the stream: only
    /// statuses newer than that one are sent (`EventOrder`).
    func events(_ id: String, client: String, after: String? = nil) throws -> Response {
        let seen = after.flatMap(EventOrder.init(id:))
        let stream: AsyncThrowingStream<JobStatus, any Error>
        do {
            stream = try events.stream(id, client: client)
        } catch let over as JobEvents.OverBudget {
            var headers = HTTPFields()
            headers[.retryAfter] = "5"
            throw APIRefusal(.tooManyRequests, over.message, headers: headers)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            for try await status in stream {
                let order = EventOrder(status)
                if let seen, order <= seen { continue }   // the client had this one, or a newer one
                let name = status.isFinal ? status.state.rawValue : "progress"
                let data = String(decoding: try encoder.encode(status), as: UTF8.self)
                try await writer.write(ByteBuffer(string: "event: \(name)\nid: \(order.id)\ndata: \(data)\n\n"))
                if status.isFinal { break }
            }
            try await writer.finish(nil)
        })
    }
}

/// Where a status stands in its job's progress (docs/api.md, "Events"): its state's rank,
/// then frames done, then shards done. A job only moves forward, so a later status has a
/// larger order; it is each event's `id`, and a stream opened with `Last-Event-ID` skips
/// what is not past it.
struct EventOrder: Comparable, Sendable {
    var rank: Int
    var frames: Int64
    var shards: Int

    init(_ status: JobStatus) {
        rank = status.state.isFinal ? 3 : status.state == .assembling ? 2 : status.state == .rendering ? 1 : 0
        frames = status.framesDone
        shards = status.shards.done
    }

    /// `RANK.FRAMES.SHARDS`, as it was sent; nil for anything else.
    init?(id: String) {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let rank = Int(parts[0]), let frames = Int64(parts[1]), let shards = Int(parts[2]),
              (0...3).contains(rank), frames >= 0, shards >= 0 else { return nil }
        (self.rank, self.frames, self.shards) = (rank, frames, shards)
    }

    var id: String { "\(rank).\(frames).\(shards)" }

    static func < (a: EventOrder, b: EventOrder) -> Bool { (a.rank, a.frames, a.shards) < (b.rank, b.frames, b.shards) }
}
