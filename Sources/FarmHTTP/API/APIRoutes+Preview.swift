import Farm
import Foundation
import HTTPTypes
import Hummingbird
import RenderEngine

extension APIRoutes {
    // MARK: Live preview (docs/api.md, "Live preview")

    /// `GET /v1/jobs/{id}/preview.m3u8`: the finished prefix of the export as an HLS EVENT
    /// playlist. Reached by a signed URL, each segment it names is signed until the same time.
    func previewPlaylist(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let caller = try authorizeRead(request)
        let index = try await previewIndex(id, for: caller)
        let expires = request.uri.queryParameters["expires"].flatMap { Int(String($0)) }
        let text = PreviewPlaylist.text(of: index) { number in
            let name = number.map { "\($0).m4s" } ?? "init.mp4"
            guard let expires else { return "preview/\(name)" }
            // Relative to the playlist, as a player resolves it.
            let by = caller.signer.map { [(URLSigner.signerKey, $0)] } ?? []
            let signed = signer.sign(path: "/v1/jobs/\(id)/preview/\(name)", query: by, expires: expires)
            return String(signed.dropFirst("/v1/jobs/\(id)/".count))
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/vnd.apple.mpegurl"
        // It grows: a player reloads it, and no cache may keep an old one.
        headers[.cacheControl] = index.ended ? "private, max-age=60" : "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// `GET /v1/jobs/{id}/preview/init.mp4` and `/preview/{n}.m4s`: the init segment and
    /// media segment n, as the index published them (never a range not all written).
    func previewSegment(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let name = try context.parameters.require("name")
        let caller = try authorizeRead(request)
        let index = try await previewIndex(id, for: caller)
        let range: (offset: Int64, length: Int64)
        if name == "init.mp4", !index.segments.isEmpty {
            range = (0, index.initLength)
        } else if name.hasSuffix(".m4s"), let number = Int(name.dropLast(4)), String(number) == name.dropLast(4),
                  index.segments.indices.contains(number) {
            range = (index.segments[number].offset, index.segments[number].length)
        } else {
            throw FarmError(.notFound, "job \(id) has no preview segment '\(name.prefix(40))' (yet): the playlist lists those there are")
        }
        let (share, owner) = (caller.share, caller.onBehalfOf)
        let gateway = self.gateway
        var headers = HTTPFields()
        headers[.contentType] = name == "init.mp4" ? "video/mp4" : "video/iso.segment"
        // A published segment never changes.
        headers[.cacheControl] = "private, max-age=86400, immutable"
        return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: Int(range.length)) { writer in
            var offset = Int(range.offset)
            let end = Int(range.offset + range.length)
            while offset < end {
                let (at, length) = (offset, min(4 << 20, end - offset))
                let block = try await gateway.call(for: share) {
                    try $0.fetchBlock(id, part: .previewMedia, offset: at, length: length, onBehalfOf: owner)
                }
                guard !block.data.isEmpty else { throw FarmError(.resultGone, "job \(id)'s preview was removed while it was sent") }
                try await writer.write(ByteBuffer(bytes: block.data.prefix(end - offset)))
                offset += block.data.count
            }
            try await writer.finish(nil)
        })
    }

    /// The preview's index as the coordinator last published it (it checks the caller owns the job).
    private func previewIndex(_ id: String, for caller: Caller) async throws -> LivePreview.Index {
        let owner = caller.onBehalfOf
        let first = try await gateway.call(for: caller.share) {
            try $0.fetchBlock(id, part: .preview, offset: 0, length: 4 << 20, onBehalfOf: owner)
        }
        guard first.data.count == first.total else {
            throw FarmError(.renderFailed, "job \(id)'s preview index is \(first.total) bytes, more than one read")
        }
        do {
            return try JSONDecoder().decode(LivePreview.Index.self, from: first.data)
        } catch {
            throw FarmError(.renderFailed, "job \(id)'s preview index cannot be read: \(error)")
        }
    }
}
