import Farm
import Foundation
import HTTPTypes
import Hummingbird
import RenderEngine
import SessionKit

extension APIRoutes {
    // MARK: Thumbnails and frames

    /// `GET /v1/jobs/{id}/segments/{i}/thumbnail?time=SECONDS&size=WxH&format=jpeg|png&tolerance=SECONDS`: the
    /// segment's oriented, filtered picture at `time` (default: its trim start) fit into
    /// the box (default 320x180, at most 400x400); `…/frame`: the segment's frame as the
    /// video shows it (its crop, at the render size, or fit into `size`, at most
    /// 4096x4096). Both made by the workers' stills path and cache. With `tolerance` the
    /// nearest keyframe within it may be shown; `Reel-Picture-Time` says the time shown.
    func still(_ request: Request, _ context: BasicRequestContext, kind: StillRequest.Kind) async throws -> Response {
        let id = try context.parameters.require("id")
        let caller = try authorizeRead(request)
        // The share first, before any call to the coordinator: a client's pictures waiting
        // for a worker hold its share of the gateway's calls (`Turns`), and a request past
        // its picture share is refused at once, not queued behind them.
        // A signed URL counts as the token that signed it: 40 of them at once are 8 being made.
        return try await pictures.holding(caller.share) { try await picture(id, kind: kind, for: caller, request, context) }
    }

    private func picture(_ id: String, kind: StillRequest.Kind, for caller: Caller, _ request: Request,
                         _ context: BasicRequestContext) async throws -> Response {
        _ = try await job(id, for: caller)
        let segment = try Self.segment(context)
        let query = request.uri.queryParameters
        let asked: StillQuery
        do {
            asked = try StillQuery(kind: kind, size: query["size"].map(String.init), time: query["time"].map(String.init),
                                       format: query["format"].map(String.init), tolerance: query["tolerance"].map(String.init))
        } catch let invalid as StillQuery.Invalid {
            throw APIRefusal(.malformed, invalid.message)
        }
        let still = StillRequest(kind: kind, segment: segment, time: asked.time, box: asked.box, cropped: kind == .frame, png: asked.png,
                                 tolerance: asked.tolerance)
        let outcome = try await gateway.call(for: caller.share) { try $0.jobStills(id, [still]) }
        if let invalid = outcome.invalid { throw FarmError(.invalidInput, invalid.map(\.description).joined(separator: "; ")) }
        guard let (result, picture) = outcome.pictures.first else { throw FarmError(.renderFailed, "the farm sent no picture") }
        var headers = HTTPFields()
        if let shown = result.time, let name = HTTPField.Name("Reel-Picture-Time") { headers[name] = String(format: "%.6f", shown) }
        // The worker's own serving time (a cache hit or a decode), for clients' timing panels.
        if let micros = result.micros, let name = HTTPField.Name("Server-Timing") {
            headers[name] = "worker;dur=\(String(format: "%.3f", Double(micros) / 1000));desc=\"\(result.cached ? "cached" : "made")\""
        }
        headers[.contentType] = asked.png ? "image/png" : "image/jpeg"
        headers[.cacheControl] = "private, max-age=3600"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: picture)))
    }

    /// The `{segment}` path parameter: a whole number from 0 to 99999 (docs/api.yaml; a
    /// session has at most `--max-segments`, whose ceiling this is).
    static func segment(_ context: BasicRequestContext) throws -> Int {
        guard let segment = Int(try context.parameters.require("segment")), (0...99_999).contains(segment) else {
            throw APIRefusal(.malformed, "the segment is a whole number from 0 to 99999")
        }
        return segment
    }
}

/// A thumbnail's or a frame's `size`, `time`, `format` and `tolerance`, as a query or a signing request
/// gives them (docs/api.yaml): the box 1x1 … 400x400 for a thumbnail (default 320x180),
/// 1x1 … 4096x4096 for a frame (default: the render size), seconds 0 … 10⁶ into the
/// segment's media (default its trim start), jpeg (default) or png, a tolerance of 0 … 3600 s (default exact).
struct StillQuery {
    /// A field that is not as the API says, named by its key.
    struct Invalid: Error {
        let key: String
        let message: String
    }

    var box: Size?
    var time: SessionTime?
    var png = false
    var tolerance: SessionTime?

    static let latest = 1_000_000.0

    /// The largest side a box may have.
    static func largest(_ kind: StillRequest.Kind) -> Int { kind == .thumbnail ? 400 : 4096 }

    init(kind: StillRequest.Kind, size: String?, time: String?, format: String?, tolerance: String? = nil) throws {
        if kind == .thumbnail { box = Size(width: 320, height: 180) }
        if let size {
            let most = Self.largest(kind)
            let parts = size.split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 2, let w = parts[0], let h = parts[1], (1...most).contains(w), (1...most).contains(h) else {
                throw Invalid(key: "size", message: "size=\(size.prefix(40)) is not WxH from 1x1 to \(most)x\(most)")
            }
            box = Size(width: Double(w), height: Double(h))
        }
        if let time {
            guard let seconds = Double(time), seconds.isFinite, (0...Self.latest).contains(seconds), let exact = SessionTime(seconds: seconds) else {
                throw Invalid(key: "time", message: "time=\(time.prefix(40)) is not a number of seconds from 0 to 1000000")
            }
            self.time = exact
        }
        if let tolerance {
            guard let seconds = Double(tolerance), seconds.isFinite, (0...StillRequest.maximumTolerance).contains(seconds),
                  let exact = SessionTime(seconds: seconds) else {
                throw Invalid(key: "tolerance", message: "tolerance=\(tolerance.prefix(40)) is not a number of seconds from 0 to 3600")
            }
            self.tolerance = exact
        }
        if let format {
            guard ["jpeg", "png"].contains(format) else {
                throw Invalid(key: "format", message: "format=\(format.prefix(40)) is not jpeg or png")
            }
            png = format == "png"
        }
    }
}
