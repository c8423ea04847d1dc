import Foundation

/// Resolves media references (docs/session-format.md) and keeps them inside the configured roots.
///
/// A relative path is read against the session file's directory; absolute paths are
/// taken as they are. Either way the real path (symlinks resolved) must lie inside one
/// of the media roots, which default to the session file's directory.
public struct MediaLocator: Sendable {
    public let baseDirectory: URL
    public let roots: [URL]
    /// Where `look:NAME` references are read (docs/filters.md, "Named looks").
    public let looksDirectory: URL?

    public init(sessionFile: URL, mediaRoots: [URL] = [], looksDirectory: URL? = nil) {
        baseDirectory = sessionFile.deletingLastPathComponent().standardizedFileURL
        let chosen = mediaRoots.isEmpty ? [baseDirectory] : mediaRoots
        roots = chosen.map { $0.standardizedFileURL.resolvingSymlinksInPath() }
        self.looksDirectory = looksDirectory?.standardizedFileURL.resolvingSymlinksInPath()
    }

    /// `look:NAME`: a file of the looks directory (a look's image, a custom filter's definition).
    public static let lookPrefix = "look:"

    public enum Reference: Hashable, Sendable {
        case file(URL)
        case contentID(String)
        /// Read from an origin by HTTP ranges (docs/session-format.md, "Sources by URL").
        case url(MediaURL)
    }

    /// The hex digits of a content id (`ContentID`), else `nil`.
    public static func contentID(of reference: String) -> String? {
        ContentID(reference)?.hex
    }

    /// The file or content id a reference names, or why it cannot be used.
    public func resolve(_ reference: String) -> Result<Reference, MediaLocatorError> {
        if reference.hasPrefix(ContentID.prefix) {
            guard let id = Self.contentID(of: reference) else {
                return .failure(.init("'\(reference)' is not a content id (sha256: and 64 lowercase hex digits)"))
            }
            return .success(.contentID(id))
        }
        guard !reference.isEmpty else { return .failure(.init("media reference is empty")) }
        if MediaURL.isURL(reference) { return MediaURL.parse(reference).map { .url($0) } }
        guard !reference.contains("\0") else { return .failure(.init("media reference contains a NUL byte")) }
        if reference.hasPrefix(Self.lookPrefix) { return resolveLook(String(reference.dropFirst(Self.lookPrefix.count))) }
        let url = reference.hasPrefix("/")
            ? URL(fileURLWithPath: reference)
            : URL(fileURLWithPath: reference, relativeTo: baseDirectory)
        return check(url.standardizedFileURL.resolvingSymlinksInPath(), reference: reference, roots: roots)
    }

    private func resolveLook(_ name: String) -> Result<Reference, MediaLocatorError> {
        guard let looksDirectory else { return .failure(.init("no looks directory was found: give --looks DIR or set REEL_LOOKS (a copied reel binary finds share/reelfarm/looks beside it; docs/filters.md, \"Named looks\")")) }
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            return .failure(.init("'\(name)' is not a file name in the looks directory"))
        }
        let url = looksDirectory.appendingPathComponent(name).resolvingSymlinksInPath()
        return check(url, reference: "\(Self.lookPrefix)\(name)", roots: [looksDirectory])
    }

    private func check(_ real: URL, reference: String, roots: [URL]) -> Result<Reference, MediaLocatorError> {
        guard roots.contains(where: { Self.contains($0, real) }) else {
            let rootList = roots.map(\.path).joined(separator: ", ")
            return .failure(.init("'\(reference)' resolves to \(real.path), outside the media roots (\(rootList))"))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real.path, isDirectory: &isDirectory) else {
            return .failure(.init("'\(reference)' not found (\(real.path))"))
        }
        guard !isDirectory.boolValue else { return .failure(.init("'\(reference)' is a directory")) }
        // A FIFO or a device would block whoever opens it: only regular files are media.
        let type = (try? FileManager.default.attributesOfItem(atPath: real.path))?[.type] as? FileAttributeType
        guard type == .typeRegular else {
            return .failure(.init("'\(reference)' is not a regular file (a FIFO, a device or a socket)"))
        }
        guard FileManager.default.isReadableFile(atPath: real.path) else {
            return .failure(.init("'\(reference)' is not readable (\(real.path))"))
        }
        return .success(.file(real))
    }

    private static func contains(_ root: URL, _ url: URL) -> Bool {
        let r = root.path.hasSuffix("/") ? String(root.path.dropLast()) : root.path
        return url.path == r || url.path.hasPrefix(r + "/") || r.isEmpty
    }
}

public struct MediaLocatorError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
