import Foundation
import SessionKit

/// Reads a session file, resolves and probes its media, and validates it: the one place
/// where a document meets the filesystem.
public struct LoadedSession: Sendable {
    public let url: URL
    public let session: Session
    public let locator: MediaLocator
    /// Every media reference of the session, probed or with the reason it cannot be.
    public let media: [String: MediaStatus]
    /// Where each reference that names a file resolved to.
    public let files: [String: URL]
    public let report: ValidationReport

    /// Throws `SessionDocumentError` when the file cannot be read as a session at all;
    /// problems with a readable session are in `report`.
    /// `select` may narrow the decoded session first (a still needs one segment's media only).
    public static func load(path: String, mediaRoots: [String] = [], filters: FilterRegistry = .builtIn,
                            select: (Session) throws -> Session = { $0 }) throws -> LoadedSession {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SessionDocumentError(path: "", message: "cannot read \(path): \((error as NSError).localizedDescription)")
        }
        let session = try select(try SessionDocument.decode(data))
        let locator = MediaLocator(sessionFile: url, mediaRoots: mediaRoots.map { URL(fileURLWithPath: $0) })
        var files: [String: URL] = [:]
        var unavailable: [String: String] = [:]
        for reference in Set(mediaReferences(of: session) + filterFiles(of: session)) {
            switch locator.resolve(reference) {
            case .failure(let error):
                unavailable[reference] = error.description
            case .success(.contentID(let id)):
                unavailable[reference] = "content id sha256:\(id.prefix(12))… is only known to a coordinator; "
                    + "give a file path to render locally"
            case .success(.file(let file)):
                files[reference] = file
            }
        }
        return make(url: url, session: session, files: files, unavailable: unavailable, locator: locator, filters: filters)
    }

    /// Probes and validates a session whose references are already resolved to local
    /// files (the coordinator's media store, a worker's cache).
    public static func make(url: URL, session: Session, files: [String: URL], unavailable: [String: String] = [:],
                            locator: MediaLocator? = nil, filters: FilterRegistry = .builtIn) -> LoadedSession {
        var media: [String: MediaStatus] = [:]
        var probed: [String: MediaStatus] = [:]
        for reference in Set(mediaReferences(of: session)) {
            if let reason = unavailable[reference] {
                media[reference] = .unavailable(reason)
            } else if let file = files[reference] {
                if let known = probed[file.path] {
                    media[reference] = known
                    continue
                }
                do {
                    media[reference] = .available(try MediaProbe.probe(path: file.path))
                } catch {
                    media[reference] = .unavailable("\(error)")
                }
                probed[file.path] = media[reference]
            } else {
                media[reference] = .unavailable("'\(reference)' was not provided")
            }
        }
        let resolver = FileResolver(files: files, unavailable: unavailable)
        var report = SessionValidator(filters: filters, locator: nil).validate(session, media: media)
        for reference in filterFiles(of: session) {
            if let reason = resolver.problem(reference) {
                report.problems.append(.init(path: filterPath(of: reference, in: session), message: reason))
            }
        }
        return LoadedSession(url: url, session: session,
                             locator: locator ?? MediaLocator(sessionFile: url, mediaRoots: []),
                             media: media, files: files, report: report)
    }

    /// Files named by filters (`.cube` LUTs), relative to the session like media.
    public static func filterFiles(of session: Session) -> [String] {
        let video = session.video.map { $0.videoSegments.flatMap(\.filters) + $0.filters + ($0.primaryFilter.map { [$0] } ?? []) } ?? []
        let image = session.image.map { $0.filters + ($0.primaryFilter.map { [$0] } ?? []) } ?? []
        return (video + image).compactMap(\.file)
    }

    private static func filterPath(of file: String, in session: Session) -> String {
        if let video = session.video {
            for (i, segment) in video.videoSegments.enumerated() {
                if let j = segment.filters.firstIndex(where: { $0.file == file }) { return "video.videoSegments[\(i)].filters[\(j)].file" }
            }
            if let j = video.filters.firstIndex(where: { $0.file == file }) { return "video.filters[\(j)].file" }
            if video.primaryFilter?.file == file { return "video.primaryFilter.file" }
        }
        if let image = session.image {
            if let j = image.filters.firstIndex(where: { $0.file == file }) { return "image.filters[\(j)].file" }
            if image.primaryFilter?.file == file { return "image.primaryFilter.file" }
        }
        return "filters"
    }

    /// The local file of a reference (media or filter file), or why there is none.
    public func file(_ reference: String) throws -> URL {
        guard let url = files[reference] else { throw EngineError("'\(reference)' is not available as a local file") }
        return url
    }

    public static func mediaReferences(of session: Session) -> [String] {
        (session.video?.videoSegments.map(\.source) ?? []) + (session.image.map { [$0.source] } ?? [])
    }

    /// The probes of every reference, when all are available.
    public var probes: [String: MediaInfo] {
        media.compactMapValues { if case .available(let info) = $0 { return info } else { return nil } }
    }

    /// The exact timeline of a valid video session.
    public func timeline() throws -> Timeline {
        try Timeline(session: session, media: probes)
    }
}

private struct FileResolver {
    let files: [String: URL]
    let unavailable: [String: String]

    func problem(_ reference: String) -> String? {
        if let reason = unavailable[reference] { return reason }
        return files[reference] == nil ? "'\(reference)' was not provided" : nil
    }
}
