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
}
