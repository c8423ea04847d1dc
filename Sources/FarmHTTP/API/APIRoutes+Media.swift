import Farm
import Foundation
import SessionKit
import HTTPTypes
import Hummingbird
import RenderEngine
import Synchronization

extension APIRoutes {
    // MARK: Media

    /// `PUT /v1/media/{contentID}`, whole or in parts (docs/api.md, "Uploading media"): a part
    /// carries `Content-Range: bytes FIRST-LAST/TOTAL` and starts where the last one ended
    /// (`HEAD` says where: `Upload-Offset`). The bytes wait in a scratch file; once whole, it
    /// is handed to the coordinator by path, which hashes it once and keeps it only if its
    /// SHA-256 is the content id (docs/protocol.md, "Uploads").
    func upload(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let caller = try authorize(request)
        // Each body streaming holds one of its client's upload share (`ClientShares`).
        return try await bodies.holding(caller.share) { try await receive(request, context, for: caller) }
    }

    private func receive(_ request: Request, _ context: BasicRequestContext, for caller: Caller) async throws -> Response {
        let contentID = try Self.contentID(context)
        // "Already there" only to a client that has sent these bytes before; another sends
        // them once, checked like any upload (docs/api.md, "Uploading media").
        let holder = PartialUploads.holder(caller)
        if try await gateway.call(for: caller.share, { try $0.hasMedia(contentID, holder: holder) }) {
            return try json(UploadState(contentID: contentID, received: nil, present: true))
        }
        let range: ContentRange?
        do {
            range = try request.headers[.contentRange].map(ContentRange.parse)
        } catch {
            throw APIRefusal(.malformed, "Content-Range must be bytes FIRST-LAST/TOTAL")
        }
        // Refused at once, before a byte is read, if the file could never fit: what it
        // declares (its Content-Range's total, or its Content-Length) against the free space.
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        let declared = range.map { Int64($0.total) } ?? request.headers[.contentLength].flatMap { Int64($0) }
        if let declared, declared > maxUpload { throw Self.tooLarge(declared, limit: maxUpload) }
        if let declared, let free = DiskSpace.available(at: uploads), declared > free {
            throw FarmError(.storageFull, "the upload declares \(declared) bytes; the coordinator has \(free) bytes free")
        }
        let partial = partials.partial(caller, contentID)
        // One part at a time of each client's file (another client's says nothing here). A
        // part resumed after a dropped connection may find the dropped one still streaming
        // until the API notices; it waits for it to be taken back rather than be refused.
        guard let had = await uploadLocks.claim(partial.path, within: Self.settling, standing: {
            range == nil ? 0 : Self.size(of: partial)
        }) else {
            throw APIRefusal(.uploadInProgress, "another upload of \(contentID) is in progress")
        }
        defer { uploadLocks.release(partial.path) }
        try FileManager.default.createDirectory(at: partial.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let range, range.first != had {
            var headers = HTTPFields()
            headers[Self.uploadOffset] = "\(had)"
            let refusal = FarmError(.offsetMismatch, "the part starts at byte \(range.first); the upload stands at \(had)")
            return try json(UploadState(contentID: contentID, received: had, present: false, error: refusal), status: .conflict, headers: headers)
        }
        if range == nil || had == 0 {
            guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                throw FarmError(.storageFull, "cannot write the upload")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: partial.path) else {
            throw FarmError(.storageFull, "cannot write the upload")
        }
        var written = 0
        do {
            defer { try? handle.close() }
            try handle.seekToEnd()
            for try await buffer in request.body {
                let data = Data(buffer: buffer)
                if let range, written + data.count > range.count { throw APIRefusal(.malformed, "the body is longer than its Content-Range") }
                // A body that does not say its length (chunked) is cut off at the cap as it streams.
                let total = Int64(had + written + data.count)
                if total > maxUpload { throw Self.tooLarge(total, limit: maxUpload) }
                try handle.write(contentsOf: data)
                written += data.count
            }
            if let range, written != range.count {
                throw APIRefusal(.malformed, "the body has \(written) bytes, its Content-Range \(range.count)")
            }
        } catch {
            // What was not taken whole is taken back: the next part starts where this one
            // did. If the file cannot be cut back, it goes, and the upload starts again at 0.
            do {
                try FileHandle(forWritingTo: partial).truncate(atOffset: UInt64(had))
            } catch {
                try? FileManager.default.removeItem(at: partial)   // HEAD then says 0, which is true either way
            }
            throw error
        }
        let received = had + written
        if let range, received < range.total {
            var headers = HTTPFields()
            headers[Self.uploadOffset] = "\(received)"
            return try json(UploadState(contentID: contentID, received: received, present: false), status: .accepted, headers: headers)
        }
        // Moved into the coordinator's media, or dropped by it (bytes that are not the
        // content id: 422); whatever is left after a failure goes, and the upload starts at 0.
        defer { try? FileManager.default.removeItem(at: partial) }
        let uploaded = try await gateway.call(for: caller.share) { try $0.adopt(partial, contentID: contentID, holder: holder) }
        return try json(UploadState(contentID: contentID, received: received, present: true), status: uploaded.wasStored == true ? .ok : .created)
    }

    /// 413 with its code; the connection is closed after it, so the rest of a body that
    /// keeps coming is not read.
    static func tooLarge(_ bytes: Int64, limit: Int64) -> APIRefusal {
        var headers = HTTPFields()
        headers[.connection] = "close"
        return APIRefusal(.tooLarge, "the upload has \(bytes) bytes or more; one upload is at most \(limit) bytes (--max-upload)",
                          headers: headers)
    }

    /// `HEAD /v1/media/{contentID}`: 200 when the coordinator has it; else 404 with the
    /// bytes of an unfinished upload in `Upload-Offset`.
    func mediaState(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let caller = try authorize(request)
        let contentID = try Self.contentID(context)
        let holder = PartialUploads.holder(caller)
        if try await gateway.call(for: caller.share, { try $0.hasMedia(contentID, holder: holder) }) { return Response(status: .ok) }
        // While a part streams in, the upload stands where that part began: its bytes are
        // not the client's to skip until it is taken whole.
        let partial = partials.partial(caller, contentID)
        var headers = HTTPFields()
        headers[Self.uploadOffset] = "\(uploadLocks.standing(partial.path) ?? Self.size(of: partial))"
        return Response(status: .notFound, headers: headers)
    }

    /// How long a part waits for another of the same file to end (a dropped connection is
    /// noticed when its socket closes, within milliseconds on a cut; a silent peer's body
    /// is closed after `--body-timeout`).
    static let settling = Duration.seconds(5)

    struct UploadState: Encodable {
        var contentID: String
        var received: Int?
        var present: Bool
        /// A part out of place is refused with its code like any refusal.
        var error: FarmError? = nil
    }

    // A registered-style field name, valid by construction.
    static let uploadOffset = HTTPField.Name("Upload-Offset")!

    /// The path's content id, also with its colon percent-encoded (`sha256%3A…`), as
    /// `encodeURIComponent`, `urllib.parse.quote` and generated clients send it.
    static func contentID(_ context: BasicRequestContext) throws -> String {
        let raw = try context.parameters.require("contentID")
        guard let id = ContentID(raw.removingPercentEncoding ?? raw) else {
            throw APIRefusal(.malformed, "'\(raw.prefix(80))' is not a content id: sha256: and 64 lowercase hex digits")
        }
        return id.description
    }

    static func size(of url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}

/// Unfinished uploads with a part streaming in: one part at a time each, and where each
/// upload stands for certain meanwhile, the byte that part began at (docs/api.md,
/// "Uploading media").
final class UploadLocks: Sendable {
    private let streaming = Mutex<[String: Int]>([:])

    /// Claims `path` for one part and returns where its upload stands (`standing`, read
    /// once the claim is held), waiting up to `within` for another part to end; nil if it
    /// has not.
    func claim(_ path: String, within: Duration, standing: () -> Int) async -> Int? {
        let clock = ContinuousClock()
        let deadline = clock.now + within
        while true {
            let claimed: Int? = streaming.withLock { parts in
                guard parts[path] == nil else { return nil }
                let offset = standing()
                parts[path] = offset
                return offset
            }
            if let claimed { return claimed }
            guard clock.now < deadline, (try? await Task.sleep(for: .milliseconds(20))) != nil else { return nil }
        }
    }

    /// Where `path`'s upload stands while a part of it streams in; nil when none does.
    func standing(_ path: String) -> Int? { streaming.withLock { $0[path] } }

    func release(_ path: String) { _ = streaming.withLock { $0.removeValue(forKey: path) } }
}
