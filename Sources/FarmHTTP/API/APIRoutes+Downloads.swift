import Farm
import Foundation
import HTTPTypes
import Hummingbird
import RenderEngine

extension APIRoutes {
    // MARK: Downloads

    /// The coordinator checks in the fetch itself that the job is the caller's and done.
    func download(_ request: Request, _ context: BasicRequestContext, part: ResultPart, type: String) async throws -> Response {
        let id = try context.parameters.require("id")
        let caller = try authorizeRead(request)
        let (share, owner) = (caller.share, caller.onBehalfOf)
        let first = try await gateway.call(for: share) { try $0.fetchBlock(id, part: part, offset: 0, length: 0, onBehalfOf: owner) }
        let size = first.total
        let range: ByteRange?
        do {
            range = try ByteRange.parse(request.headers[.range], size: size)
        } catch {
            var headers = HTTPFields()
            headers[.contentRange] = "bytes */\(size)"
            throw APIRefusal(.rangeNotSatisfiable, "the range is outside the \(size)-byte file", headers: headers)
        }
        let start = range?.first ?? 0
        let count = range?.count ?? size
        var headers = HTTPFields()
        // A range of a JSON document is not one: sent as bytes (docs/api.yaml).
        headers[.contentType] = range != nil && type == "application/json" ? "application/octet-stream" : type
        headers[.acceptRanges] = "bytes"
        if let range { headers[.contentRange] = "bytes \(range.first)-\(range.last)/\(size)" }
        let gateway = self.gateway
        return Response(status: range == nil ? .ok : .partialContent, headers: headers,
                        body: ResponseBody(contentLength: count) { writer in
            var offset = start
            let end = start + count
            while offset < end {
                let (at, length) = (offset, min(4 << 20, end - offset))
                let block = try await gateway.call(for: share) {
                    try $0.fetchBlock(id, part: part, offset: at, length: length, onBehalfOf: owner)
                }
                guard !block.data.isEmpty else { break }
                try await writer.write(ByteBuffer(bytes: block.data.prefix(end - offset)))
                offset += block.data.count
            }
            try await writer.finish(nil)
        })
    }

    // MARK: Signed URLs

    /// `POST /v1/jobs/{id}/output-url` (`{"seconds": N, "part": "output"|"sidecar"}`),
    /// `POST /v1/jobs/{id}/preview-url` (`{"seconds": N}`: the live preview's playlist) and
    /// `POST /v1/jobs/{id}/segments/{segment}/thumbnail-url` (`{"seconds", "size", "time",
    /// "format"}`): a URL of the resource a browser can load without a token until it expires.
    func signedURL(_ request: Request, _ context: BasicRequestContext, segment: String?,
                   still: StillRequest.Kind = .thumbnail, preview: Bool = false) async throws -> Response {
        let id = try context.parameters.require("id")
        let caller = try authorize(request)
        _ = try await job(id, for: caller)
        var request = request
        let body = try await request.collectBody(upTo: 4096)
        let fields: [String: Any]
        if body.readableBytes == 0 {
            fields = [:]
        } else {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] else {
                return try problem("$", "the body is a JSON object")
            }
            fields = object
        }
        let known: Set = preview ? ["seconds"] : segment == nil ? ["seconds", "part"] : ["seconds", "size", "time", "format", "tolerance"]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            return try problem(unknown, "is not a field (\(known.sorted().joined(separator: ", ")))")
        }
        var seconds = URLSigner.standard
        if fields["seconds"] != nil {
            // JSONDecoder, not the bridged NSNumber: there 1 is also `true`.
            struct Lifetime: Decodable { var seconds: Int }
            guard let number = try? JSONDecoder().decode(Lifetime.self, from: Data(buffer: body)).seconds,
                  (1...URLSigner.longest).contains(number) else {
                return try problem("seconds", "must be an integer from 1 to \(URLSigner.longest)")
            }
            seconds = number
        }
        let path: String
        var query: [(String, String)] = []
        if preview {
            path = "/v1/jobs/\(id)/preview.m3u8"
        } else if let segment {
            path = "/v1/jobs/\(id)/segments/\(segment)/\(still.rawValue)"
            var texts: [String: String] = [:]
            for key in ["size", "time", "format", "tolerance"] {
                guard let raw = fields[key] else { continue }
                // time and tolerance are numbers, read back by JSONDecoder: bridged, 0 and 1
                // are also `false` and `true` (a frame at 0 s was refused); size and format are strings.
                let numeric = key == "time" || key == "tolerance"
                let number = numeric ? (try? JSONSerialization.data(withJSONObject: [raw]))
                    .flatMap({ try? JSONDecoder().decode([Double].self, from: $0).first }) : nil
                guard let text = numeric ? number.map({ "\($0)" }) : raw as? String else {
                    return try problem(key, numeric ? "must be a number" : "must be a string")
                }
                texts[key] = text
                query.append((key, text))
            }
            do {
                _ = try StillQuery(kind: still, size: texts["size"], time: texts["time"], format: texts["format"],
                                   tolerance: texts["tolerance"])
            } catch let invalid as StillQuery.Invalid {
                return try problem(invalid.key, invalid.message)
            }
        } else {
            let part = fields["part"] as? String ?? "output"
            guard ["output", "sidecar"].contains(part), fields["part"] == nil || fields["part"] is String else {
                return try problem("part", "must be output or sidecar")
            }
            path = "/v1/jobs/\(id)/\(part)"
        }
        // The signer's name goes in the URL, signed: its requests take the signer's shares.
        if let share = caller.share { query.append((URLSigner.signerKey, share)) }
        let expires = Int(Date().timeIntervalSince1970) + seconds
        struct Signed: Encodable { var url: String; var expires: Int }
        return try json(Signed(url: signer.sign(path: path, query: query, expires: expires), expires: expires), status: .created)
    }
}
