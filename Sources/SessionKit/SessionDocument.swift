import Foundation

/// Reading and writing session JSON: format checks first, then the model, with decoding
/// errors turned into one line that names the JSON path.
public enum SessionDocument {
    /// Documents larger than this are refused before parsing.
    public static let maximumSize = 64 << 20

    public static func decode(_ data: Data) throws(SessionDocumentError) -> Session {
        guard data.count <= maximumSize else {
            throw SessionDocumentError(path: "", message: "document is \(data.count) bytes, the limit is \(maximumSize)")
        }
        if let syntax = JSONSyntax.firstError(in: [UInt8](data)) {
            throw SessionDocumentError(path: "", message: "not valid JSON: \(syntax)")
        }
        let header: Header
        do {
            header = try makeDecoder().decode(Header.self, from: data)
        } catch {
            throw SessionDocumentError(error)
        }
        if let identifier = header.formatIdentifier, identifier != Session.formatIdentifier {
            throw SessionDocumentError(path: "formatIdentifier",
                message: "unknown format '\(identifier)' (expected '\(Session.formatIdentifier)')")
        }
        if let text = header.formatVersion {
            guard let version = FormatVersion(text) else {
                throw SessionDocumentError(path: "formatVersion", message: "'\(text)' is not a version like \"1.0\"")
            }
            guard version.major <= Session.formatVersion.major else {
                throw SessionDocumentError(path: "formatVersion",
                    message: "version \(text) is newer than this reader supports (\(Session.formatVersion)); upgrade reel")
            }
        }
        do {
            return try makeDecoder().decode(Session.self, from: data)
        } catch {
            throw SessionDocumentError(error)
        }
    }

    /// Canonical JSON: sorted keys, Apple's array encodings for geometry, CMTime fields
    /// for times, ISO 8601 dates. `decode(encode(s)) == s`.
    public static func encode(_ session: Session) throws -> Data {
        try makeEncoder().encode(session)
    }

    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(date.formatted(Self.iso8601))
        }
        return encoder
    }

    /// `2026-11-01T09:30:00.250Z`: UTC with milliseconds.
    public static let iso8601 = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            // Apple's default JSONEncoder writes seconds since 2001-01-01. Kept to the
            // millisecond, as written back, and within ISO 8601's years 0001…9999.
            if let seconds = try? c.decode(Double.self) {
                guard seconds >= -63_113_904_000, seconds < 252_423_993_600 else {
                    throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(seconds) s from 2001-01-01 is outside the years 1 to 9999")
                }
                return Date(timeIntervalSinceReferenceDate: (seconds * 1000).rounded() / 1000)
            }
            let text = try c.decode(String.self)
            if let date = try? Date(text, strategy: Self.iso8601) { return date }
            if let date = try? Date(text, strategy: .iso8601) { return date }
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "'\(text)' is not an ISO 8601 date")
        }
        return decoder
    }

    private struct Header: Decodable {
        var formatIdentifier: String?
        var formatVersion: String?
    }
}

/// A document that cannot be read: one line, `path: message`.
public struct SessionDocumentError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    init(_ error: any Error) {
        guard let error = error as? DecodingError else {
            self.init(path: "", message: "\(error)")
            return
        }
        switch error {
        case .typeMismatch(let type, let context):
            self.init(path: JSONPath(context.codingPath).description,
                      message: "expected \(Self.describe(type)); \(Self.detail(context))")
        case .valueNotFound(let type, let context):
            self.init(path: JSONPath(context.codingPath).description,
                      message: "expected \(Self.describe(type)), found null")
        case .keyNotFound(let key, let context):
            self.init(path: JSONPath(context.codingPath + [key]).description, message: "is required")
        case .dataCorrupted(let context):
            let path = JSONPath(context.codingPath).description
            self.init(path: path, message: path.isEmpty ? "not valid JSON: \(Self.detail(context))" : Self.detail(context))
        @unknown default:
            self.init(path: "", message: "\(error)")
        }
    }

    private static func detail(_ context: DecodingError.Context) -> String {
        var text = context.debugDescription
        if let underlying = context.underlyingError {
            let nsError = underlying as NSError
            if let detail = nsError.userInfo[NSDebugDescriptionErrorKey] as? String {
                text += " (\(detail))"
            } else {
                text += " (\(underlying))"
            }
        }
        return text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Double.Type, is Float.Type: return "a number"
        case is Int64.Type, is Int32.Type, is Int.Type: return "an integer"
        case is Bool.Type: return "true or false"
        case is SessionID.Type: return "an integer or a string"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return name
        }
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// A JSON path in the style of `video.videoSegments[2].trimDuration`.
public struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    public private(set) var description: String

    public init(_ text: String = "") { description = text }

    public init(_ codingPath: [any CodingKey]) {
        description = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue == String(index) || key.stringValue.hasPrefix("Index") {
                self = self[index]
            } else {
                self = self[key.stringValue]
            }
        }
    }

    public subscript(key: String) -> JSONPath {
        JSONPath(description.isEmpty ? key : "\(description).\(key)")
    }

    public subscript(index: Int) -> JSONPath {
        JSONPath("\(description)[\(index)]")
    }
}
