/// An error with its code: the body of `error` and `refused` messages, of every refusal
/// of the HTTP API (`{"error": {"code", "message"}}`), a failed job's `error`, and what
/// `FarmClient` throws.
public struct FarmError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public var code: FarmErrorCode
    public var message: String

    public init(_ code: FarmErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// `error` as a farm error: its own code if it has one, `fallback` otherwise.
    public static func from(_ error: any Error, fallback: FarmErrorCode = .internal) -> FarmError {
        error as? FarmError ?? FarmError(fallback, "\(error)")
    }
}
