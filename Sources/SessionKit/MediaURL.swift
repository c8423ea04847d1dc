import Foundation

/// A media or filter file named by an `http://` or `https://` URL (docs/session-format.md,
/// "Sources by URL"), typically a presigned object-storage URL. Its query string is a
/// credential: everything meant for people (logs, errors, sidecars, the dashboard) uses
/// `redacted`, never `string`.
public struct MediaURL: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The URL exactly as the session gave it (with its credentials).
    public let string: String
    public let scheme: String
    /// The host as written, lowercased; an IPv6 literal without its brackets.
    public let host: String
    public let port: Int

    /// URLs longer than this are refused (a presigned URL is well under 4 KiB).
    public static let maximumLength = 8192

    /// Whether `reference` starts with `http://` or `https://` (any case).
    public static func isURL(_ reference: String) -> Bool {
        let lower = reference.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// Parses `reference`; the error names what is wrong without repeating the query.
    public static func parse(_ reference: String) -> Result<MediaURL, MediaLocatorError> {
        guard reference.utf8.count <= maximumLength else {
            return .failure(.init("a URL of \(reference.utf8.count) bytes, more than \(maximumLength)"))
        }
        guard reference.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            return .failure(.init("'\(redact(reference))' has spaces, control or non-ASCII characters (percent-encode them)"))
        }
        guard let components = URLComponents(string: reference), let scheme = components.scheme?.lowercased(),
              ["http", "https"].contains(scheme) else {
            return .failure(.init("'\(redact(reference))' is not an http or https URL"))
        }
        guard let host = components.host?.lowercased(), !host.isEmpty else {
            return .failure(.init("'\(redact(reference))' has no host"))
        }
        guard components.user == nil, components.password == nil else {
            return .failure(.init("'\(redact(reference))' carries a user name or password: use a presigned URL"))
        }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { return .failure(.init("'\(redact(reference))' has port \(port)")) }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return .success(MediaURL(string: reference, scheme: scheme, host: bare, port: port))
    }

    private init(string: String, scheme: String, host: String, port: Int) {
        self.string = string
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch Self.parse(text) {
        case .success(let url): self = url
        case .failure(let error): throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(string)
    }

    /// `scheme://host[:port]/path`, with `?…` in place of a query and no fragment: what
    /// people may see.
    public var redacted: String { Self.redact(string) }

    public var description: String { redacted }

    /// The URL without its query and fragment: the same object whatever credentials sign it.
    public var object: String { Self.withoutQuery(string) }

    /// A reference as people may see it: a URL redacted, anything else as it is.
    /// Without its query and fragment, and without a user name or password in its
    /// authority (`https://…@host/`): what a log line or an error may show.
    public static func redact(_ reference: String) -> String {
        guard isURL(reference) else { return reference }
        let bare = withoutUserInfo(withoutQuery(reference))
        let queried = withoutQuery(reference).count < reference.count && reference.dropFirst(withoutQuery(reference).count).first == "?"
        return queried ? bare + "?…" : bare
    }

    private static func withoutUserInfo(_ reference: String) -> String {
        guard let scheme = reference.range(of: "://") else { return reference }
        let rest = reference[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@") else { return reference }
        return String(reference[..<scheme.upperBound]) + "…" + String(rest[at...])
    }

    private static func withoutQuery(_ reference: String) -> String {
        String(reference.prefix { $0 != "?" && $0 != "#" })
    }

    /// The URL `location` (a redirect's `Location`, absolute or relative) points to from here.
    public func resolving(_ location: String) -> Result<MediaURL, MediaLocatorError> {
        guard let base = URL(string: string), let target = URL(string: location, relativeTo: base)?.absoluteString else {
            return .failure(.init("a redirect from '\(redacted)' to a location that is not a URL"))
        }
        return Self.parse(target)
    }
}

extension Session {
    /// The session with every URL it names redacted (sources, filter files): the copy a
    /// sidecar, a status or a log may carry.
    public func redactingURLs() -> Session {
        func redact(_ filter: SessionFilter) -> SessionFilter {
            var filter = filter
            filter.file = filter.file.map(MediaURL.redact)
            filter.image = filter.image.map(MediaURL.redact)
            return filter
        }
        var copy = self
        if var video = copy.video {
            video.filters = video.filters.map(redact)
            video.primaryFilter = video.primaryFilter.map(redact)
            for i in video.videoSegments.indices {
                video.videoSegments[i].source = MediaURL.redact(video.videoSegments[i].source)
                video.videoSegments[i].filters = video.videoSegments[i].filters.map(redact)
            }
            copy.video = video
        }
        if var image = copy.image {
            image.source = MediaURL.redact(image.source)
            image.filters = image.filters.map(redact)
            image.primaryFilter = image.primaryFilter.map(redact)
            copy.image = image
        }
        return copy
    }
}
