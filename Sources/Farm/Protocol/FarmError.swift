// The codes are a module of their own, so the HTTP client library (ReelFarmClient) shares
// them without linking the engine: every user of Farm sees them as before.
@_exported import FarmCodes
import RenderEngine

/// An error with its code: the body of `error` and `refused` messages, and what
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

extension FarmErrorCode {
    /// The code of an error met rendering or serving a picture: an origin that refuses or
    /// changed is the request's fault (it fails the job; another worker would not do
    /// better), a cancelled render is `cancelled`, anything else a failed render.
    public static func of(_ error: any Error) -> FarmErrorCode {
        switch error {
        case is RenderCancelled: .cancelled
        case let farm as FarmError: farm.code
        case let origin as OriginError: origin.kind == .changed ? .mediaChanged : origin.isPermanent ? .originRefused : .ioFailed
        default: .renderFailed
        }
    }
}
