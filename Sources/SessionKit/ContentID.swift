/// A file named by its bytes: `sha256:` and the 64 lowercase hex digits of the SHA-256 of
/// its contents (docs/session-format.md, "Media references"). How a session names uploaded media,
/// how the farm's stores and caches key files, and how the sidecar records sources. This
/// is the one parser of the text form: anything else is not a content id.
public struct ContentID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The 64 lowercase hex digits.
    public let hex: String

    public static let prefix = "sha256:"

    /// `sha256:` and 64 lowercase hex digits, else `nil`.
    public init?(_ text: String) {
        guard text.hasPrefix(Self.prefix) else { return nil }
        self.init(hex: String(text.dropFirst(Self.prefix.count)))
    }

    /// 64 lowercase hex digits, else `nil`.
    public init?(hex: String) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        self.hex = hex
    }

    public var description: String { Self.prefix + hex }

    public static func < (a: ContentID, b: ContentID) -> Bool { a.hex < b.hex }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ContentID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "'\(text.prefix(80))' is not a content id (sha256: and 64 lowercase hex digits)"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
