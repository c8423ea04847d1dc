// The wire contract is a module of its own (FarmWire), so the HTTP client library
// (ReelFarmClient) shares it without linking the engine: every user of Farm sees it too.
@_exported import FarmWire
import RenderEngine

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
