import Farm
import Foundation
import HTTPTypes
import Hummingbird

/// The one place a farm error becomes an HTTP status (docs/api.md, "Errors"): routes let
/// `FarmError`s thrown by the coordinator or the client pass, and this maps their code.
/// Nothing on the HTTP side reads an error's words.
struct FarmErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as FarmError {
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return Response(status: Self.status(of: error.code), headers: headers,
                            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(["error": error]))))
        }
    }

    static func status(of code: FarmErrorCode) -> HTTPResponse.Status {
        switch code {
        case .invalidInput, .originRefused: .unprocessableContent
        case .unauthorized: .unauthorized
        case .forbidden, .notOwner: .forbidden
        case .noSuchJob: .notFound
        case .resultGone: .gone
        case .alreadyEnded, .notEnded, .missingMedia, .mediaChanged, .cancelled, .handedBack: .conflict
        case .storageFull: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
        case .noAnswer: .gatewayTimeout
        case .malformed, .versionMismatch, .engineMismatch, .handshakeFailed, .unknownWorker, .renderFailed: .badGateway
        case .ioFailed, .internal: .internalServerError
        }
    }
}
