/// A session's identifier. The SDK types `sessionID` as an integer; other editors write
/// strings. Either is accepted and written back as it was read (docs/session-format.md).
public enum SessionID: Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral {
    case integer(Int64)
    case string(String)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let number = try? c.decode(Int64.self) {
            self = .integer(number)
        } else if let text = try? c.decode(String.self) {
            self = .string(text)
        } else {
            throw DecodingError.typeMismatch(SessionID.self, .init(codingPath: decoder.codingPath,
                debugDescription: "expected an integer (as the SDK writes it) or a string"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .integer(let number): try c.encode(number)
        case .string(let text): try c.encode(text)
        }
    }

    public var description: String {
        switch self {
        case .integer(let number): return String(number)
        case .string(let text): return text
        }
    }
}
