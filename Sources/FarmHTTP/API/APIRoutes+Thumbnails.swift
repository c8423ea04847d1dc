import Farm
import Foundation
import HTTPTypes
import Hummingbird
import RenderEngine
import SessionKit

extension APIRoutes {
    // MARK: Thumbnails

    /// `GET /v1/jobs/{id}/segments/{i}/thumbnail?time=SECONDS&size=WxH&format=jpeg|png`: the
    /// segment's oriented, filtered picture at `time` (default: its trim start) fit into
    /// the box (default 320x180, at most 400x400), made by the workers' stills path.
    func thumbnail(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        _ = try await job(id, for: try authorizeRead(request))
        let segment = try Self.segment(context)
        let query = request.uri.queryParameters
        let asked: ThumbnailQuery
        do {
            asked = try ThumbnailQuery(size: query["size"].map(String.init), time: query["time"].map(String.init),
                                       format: query["format"].map(String.init))
        } catch let invalid as ThumbnailQuery.Invalid {
            throw HTTPError(.badRequest, message: invalid.message)
        }
        let (box, time, png) = (asked.box, asked.time, asked.png)
        let still = StillRequest(kind: .thumbnail, segment: segment, time: time, box: box, png: png)
        let outcome = try await gateway.call { try $0.jobStills(id, [still]) }
        if let invalid = outcome.invalid { throw HTTPError(.unprocessableContent, message: invalid) }
        guard let picture = outcome.pictures.first?.1 else { throw HTTPError(.badGateway, message: "the farm sent no picture") }
        var headers = HTTPFields()
        headers[.contentType] = png ? "image/png" : "image/jpeg"
        headers[.cacheControl] = "private, max-age=3600"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: picture)))
    }

    /// The `{segment}` path parameter: a whole number from 0.
    static func segment(_ context: BasicRequestContext) throws -> Int {
        guard let segment = Int(try context.parameters.require("segment")), segment >= 0 else {
            throw HTTPError(.badRequest, message: "the segment is a whole number from 0")
        }
        return segment
    }
}

/// A thumbnail's `size`, `time` and `format`, as a query or a signing request gives them
/// (docs/api.yaml): the box 1x1 … 400x400 (default 320x180), seconds 0 … 10⁶ into the
/// segment's media (default its trim start), jpeg (default) or png.
struct ThumbnailQuery {
    /// A field that is not as the API says, named by its key.
    struct Invalid: Error {
        let key: String
        let message: String
    }

    var box = Size(width: 320, height: 180)
    var time: SessionTime?
    var png = false

    static let latest = 1_000_000.0

    init(size: String?, time: String?, format: String?) throws {
        if let size {
            let parts = size.split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 2, let w = parts[0], let h = parts[1], (1...400).contains(w), (1...400).contains(h) else {
                throw Invalid(key: "size", message: "size=\(size.prefix(40)) is not WxH from 1x1 to 400x400")
            }
            box = Size(width: Double(w), height: Double(h))
        }
        if let time {
            guard let seconds = Double(time), seconds.isFinite, (0...Self.latest).contains(seconds), let exact = SessionTime(seconds: seconds) else {
                throw Invalid(key: "time", message: "time=\(time.prefix(40)) is not a number of seconds from 0 to 1000000")
            }
            self.time = exact
        }
        if let format {
            guard ["jpeg", "png"].contains(format) else {
                throw Invalid(key: "format", message: "format=\(format.prefix(40)) is not jpeg or png")
            }
            png = format == "png"
        }
    }
}
