import Farm
import Foundation
import HTTPTypes
import Hummingbird

extension APIRoutes {
    // MARK: Downloads

    func download(_ request: Request, _ context: BasicRequestContext, part: String, type: String) async throws -> Response {
        let id = try context.parameters.require("id")
        let status = try await job(id, for: try authorize(request))
        guard status.state == .done else { throw HTTPError(.conflict, message: "job \(id) is \(status.state.rawValue), not done") }
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
}
