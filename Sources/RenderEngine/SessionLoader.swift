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
    public static func load(path: String, mediaRoots: [String] = [],
                            filters: FilterRegistry = .builtIn) throws -> LoadedSession {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SessionDocumentError(path: "", message: "cannot read \(path): \((error as NSError).localizedDescription)")
        }
        let session = try SessionDocument.decode(data)
        let locator = MediaLocator(sessionFile: url, mediaRoots: mediaRoots.map { URL(fileURLWithPath: $0) })
        var media: [String: MediaStatus] = [:]
        var files: [String: URL] = [:]
        for reference in Self.mediaReferences(of: session) where media[reference] == nil {
            switch locator.resolve(reference) {
            case .failure(let error):
                media[reference] = .unavailable(error.description)
            case .success(.contentID(let id)):
                media[reference] = .unavailable("content id sha256:\(id.prefix(12))… is only known to a coordinator; "
                    + "give a file path to render locally")
            case .success(.file(let file)):
                files[reference] = file
                do {
                    media[reference] = .available(try MediaProbe.probe(path: file.path))
                } catch {
                    media[reference] = .unavailable("\(error)")
                }
            }
        }
        let report = SessionValidator(filters: filters, locator: locator).validate(session, media: media)
        return LoadedSession(url: url, session: session, locator: locator, media: media, files: files, report: report)
    }

    static func mediaReferences(of session: Session) -> [String] {
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
