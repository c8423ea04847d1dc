import FarmWire
import Foundation
import SessionKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of a ReelFarm's HTTP API (docs/api.md, "Clients"): upload a session's media,
/// export it, follow its progress, fetch the result and pictures. A value with no global
/// state: each call is one or a few HTTP exchanges on the `URLSession` it was given.
///
/// ```swift
/// let farm = ReelFarm(api: URL(string: "https://farm.example/v1")!, token: token)
/// let job = try await farm.export(session, media: ["a.mp4": clipA, "b.mp4": clipB]) { status in
///     print(status.state, status.fractionDone)
/// }
/// try await farm.download(job.jobID, to: outputFile)
/// ```
public struct ReelFarm: Sendable {
    /// The API's base, `…/v1`.
    public let api: URL
    private let token: String?
    let session: URLSession
    /// Bytes per `PUT` of an upload: a dropped connection costs at most one part.
    public var uploadPartBytes = 8 << 20
    /// Times a dropped upload or event stream is resumed before the error is thrown.
    public var retries = 5

    public init(api: URL, token: String? = nil, session: URLSession = .shared) {
        self.api = api
        self.token = token
        self.session = session
    }

    // MARK: Exporting

    /// Uploads what the farm lacks of `media` (reference in the session → local file),
    /// submits the session, follows it to its end with `progress`, and returns its final
    /// status: `done`, or `ReelFarmError.jobEnded` for a failed or cancelled job.
    public func export(_ sessionDocument: Session, media: [String: URL], settings: ExportSettings = ExportSettings(),
                       priority: Int? = nil, callback: URL? = nil,
                       progress: @Sendable (JobStatus) -> Void = { _ in }) async throws -> JobStatus {
        var files: [String: String] = [:]
        for (reference, file) in media.sorted(by: { $0.key < $1.key }) { files[reference] = try await upload(file) }
        let job = try await submit(sessionDocument, files: files, settings: settings, priority: priority, callback: callback)
        var last = job
        for try await event in events(job.jobID) {
            last = event
            progress(event)
        }
        guard last.state == .done else { throw ReelFarmError.jobEnded(last) }
        return last
    }

    /// Submits a session whose media are uploaded (`files`: reference → content id);
    /// returns the job as created.
    public func submit(_ sessionDocument: Session, files: [String: String], settings: ExportSettings = ExportSettings(),
                       priority: Int? = nil, callback: URL? = nil, idempotencyKey: String? = nil) async throws -> JobStatus {
        let body = try requestBody(sessionDocument, files: files, settings: settings, priority: priority, callback: callback)
        var headers: [String: String] = ["Content-Type": "application/json"]
        if let idempotencyKey { headers["Idempotency-Key"] = idempotencyKey }
        struct Created: Decodable { var job: JobStatus }
        return try await call("POST", "jobs", body: body, headers: headers, as: Created.self).job
    }

    /// Submits a batch: one job per variant, all or none (docs/api.md, "Batches").
    public func submitBatch(_ sessionDocument: Session, files: [String: String], variants: [BatchVariant],
                            settings: ExportSettings = ExportSettings(), priority: Int? = nil) async throws -> BatchStatus {
        var body = try requestObject(sessionDocument, files: files, settings: settings, priority: priority, callback: nil)
        body["variants"] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(variants))
        struct Created: Decodable { var batch: BatchStatus }
        return try await call("POST", "batches", body: try JSONSerialization.data(withJSONObject: body),
                              headers: ["Content-Type": "application/json"], as: Created.self).batch
    }

    public func status(_ job: String) async throws -> JobStatus {
        try await call("GET", "jobs/\(try Self.segment(job))", as: JobStatus.self)
    }

    public func batch(_ id: String) async throws -> BatchStatus {
        try await call("GET", "batches/\(try Self.segment(id))", as: BatchStatus.self)
    }

    /// Cancels an unfinished job; returns its status.
    @discardableResult
    public func cancel(_ job: String) async throws -> JobStatus {
        try await call("DELETE", "jobs/\(try Self.segment(job))", as: JobStatus.self)
    }

    /// The job's statuses as they change, ending with its final one (docs/api.md,
    /// "Events"). A dropped stream is resumed with `Last-Event-ID`: no status is repeated.
    public func events(_ job: String) -> JobEvents {
        JobEvents(client: self, job: job)
    }

    // MARK: Results

    /// A URL of the finished output (`part: "sidecar"` for its sidecar) that anyone may load
    /// until it expires: for a player, or to hand to another service.
    public func outputURL(_ job: String, seconds: Int = 3600, part: String = "output") async throws -> URL {
        try await signed("jobs/\(try Self.segment(job))/output-url", ["seconds": seconds, "part": part])
    }

    /// A URL of the job's live preview playlist (HLS) that any player opens, while it renders and after.
    public func previewURL(_ job: String, seconds: Int = 3600) async throws -> URL {
        try await signed("jobs/\(try Self.segment(job))/preview-url", ["seconds": seconds])
    }

    /// Writes the finished output to `file` (complete, or not at all).
    public func download(_ job: String, to file: URL) async throws {
        let request = try makeRequest("GET", "jobs/\(try Self.segment(job))/output")
        let (temporary, response) = try await session.download(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            let body = (try? Data(contentsOf: temporary)) ?? Data()
            try? FileManager.default.removeItem(at: temporary)   // the error body, read
            throw ReelFarmError.from(status: status, body: body)
        }
        do {
            if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
            try FileManager.default.moveItem(at: temporary, to: file)
        } catch {
            throw ReelFarmError.file(path: file.path, reason: "\(error)")
        }
    }

    /// A picture of segment `segment` at `time` seconds of its media (its trim start when
    /// nil), fit into `size` (`"320x180"`).
    public func picture(_ kind: PictureKind, job: String, segment: Int, time: Double? = nil, size: String? = nil,
                        format: PictureFormat = .jpeg) async throws -> Data {
        var query = [URLQueryItem(name: "format", value: format.rawValue)]
        if let time { query.append(URLQueryItem(name: "time", value: String(time))) }
        if let size { query.append(URLQueryItem(name: "size", value: size)) }
        let (data, status, _) = try await exchange(try makeRequest("GET", "jobs/\(try Self.segment(job))/segments/\(segment)/\(kind.rawValue)",
                                                                   query: query))
        guard status == 200 else { throw ReelFarmError.from(status: status, body: data) }
        return data
    }

    // MARK: Plumbing

    /// One path segment of the API (a job or batch id): nothing that could change the path.
    static func segment(_ id: String) throws -> String {
        guard !id.isEmpty, id.count <= 128, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw ReelFarmError.invalid([Problem(path: "id", message: "'\(id.prefix(40))' is not a job or batch id")])
        }
        return id
    }

    func makeRequest(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
                     headers: [String: String] = [:]) throws -> URLRequest {
        var components = URLComponents(url: api.appendingPathComponent(path), resolvingAgainstBaseURL: false)
        if !query.isEmpty { components?.queryItems = query }
        guard let url = components?.url else { throw ReelFarmError.invalid([Problem(path: "api", message: "\(api) is not a URL")]) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// The answer's body, status and headers.
    func exchange(_ request: URLRequest) async throws -> (Data, Int, HTTPURLResponse?) {
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        return (data, http?.statusCode ?? 0, http)
    }

    func call<T: Decodable>(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:],
                            as: T.Type) async throws -> T {
        let (data, status, _) = try await exchange(try makeRequest(method, path, body: body, headers: headers))
        guard (200..<300).contains(status) else { throw ReelFarmError.from(status: status, body: data) }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw ReelFarmError.unexpectedAnswer(status: status, detail: "\(error)")
        }
    }

    private func signed(_ path: String, _ fields: [String: Any]) async throws -> URL {
        struct Signed: Decodable { var url: String }
        let url = try await call("POST", path, body: try JSONSerialization.data(withJSONObject: fields),
                                 headers: ["Content-Type": "application/json"], as: Signed.self).url
        // A path of this API: on the API's host.
        var components = URLComponents(url: api, resolvingAgainstBaseURL: false)
        components?.path = ""
        components?.query = nil
        guard let base = components?.url, let absolute = URL(string: url, relativeTo: base)?.absoluteURL else {
            throw ReelFarmError.unexpectedAnswer(status: 201, detail: "'\(url.prefix(100))' is not a URL path")
        }
        return absolute
    }

    private func requestObject(_ sessionDocument: Session, files: [String: String], settings: ExportSettings, priority: Int?,
                               callback: URL?) throws -> [String: Any] {
        var body: [String: Any] = [
            "session": try JSONSerialization.jsonObject(with: SessionDocument.encode(sessionDocument)),
            "files": files,
            "settings": try JSONSerialization.jsonObject(with: JSONEncoder().encode(settings)),
        ]
        if let priority { body["priority"] = priority }
        if let callback { body["callback"] = callback.absoluteString }
        return body
    }

    private func requestBody(_ sessionDocument: Session, files: [String: String], settings: ExportSettings, priority: Int?,
                             callback: URL?) throws -> Data {
        try JSONSerialization.data(withJSONObject: try requestObject(sessionDocument, files: files, settings: settings,
                                                                     priority: priority, callback: callback))
    }
}
