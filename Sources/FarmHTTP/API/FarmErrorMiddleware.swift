import Farm
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// A refusal of the API that carries headers the client needs besides its code
/// (`Allow`, `WWW-Authenticate`, `Retry-After`, `Content-Range`).
struct APIRefusal: Error {
    let error: FarmError
    let headers: HTTPFields

    init(_ code: FarmErrorCode, _ message: String, headers: HTTPFields = HTTPFields()) {
        error = FarmError(code, message)
        self.headers = headers
    }
}

/// The one place an error becomes an HTTP answer (docs/api.md, "Errors"): every refusal
/// is `{"error": {"code", "message"}}` with its code's one status (`FarmErrorCode.httpStatus`),
/// whether a route refused (`FarmError`, `APIRefusal`), the coordinator did, or Hummingbird
/// itself (no such route, a body over its limit: `HTTPResponseError`s, given the code of
/// their status).
/// A client decides by the code and needs no table of statuses.
struct FarmErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let refusal as APIRefusal {
            return try Self.answer(refusal.error, headers: refusal.headers)
        } catch let error as FarmError {
            return try Self.answer(error)
        } catch let error as HTTPError {
            return try Self.answer(Self.farmError(status: error.status, message: error.body), headers: error.headers)
        } catch let error as any HTTPResponseError {
            // Hummingbird's other refusals: a body past its limit (NIOTooManyBytesError), ...
            return try Self.answer(Self.farmError(status: error.status, message: nil))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            context.logger.error("\(request.method) \(request.uri.path): \(error)")
            return try Self.answer(FarmError(.internal, "the API failed to answer: an internal error"))
        }
    }

    static func answer(_ error: FarmError, headers: HTTPFields = HTTPFields()) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        // A standby leads within the lease's 10 s of the leader's end (docs/operations.md).
        if error.code == .notLeader, headers[.retryAfter] == nil { headers[.retryAfter] = "2" }
        return Response(status: status(of: error.code), headers: headers,
                        body: .init(byteBuffer: ByteBuffer(bytes: try RefusalBody.encode(error))))
    }

    static func status(of code: FarmErrorCode) -> HTTPResponse.Status {
        HTTPResponse.Status(code: code.httpStatus)
    }

    /// Hummingbird's own refusals as farm errors: the code its status stands for. This is
    /// the API's only map from a status to a code, for errors not of the farm's making.
    static func farmError(status: HTTPResponse.Status, message: String?) -> FarmError {
        let code: FarmErrorCode = switch status.code {
        case 401: .unauthorized
        case 403: .forbidden
        case 404: .notFound
        case 405: .methodNotAllowed
        case 413: .tooLarge
        case 415: .unsupportedMediaType
        case 416: .rangeNotSatisfiable
        case 429: .tooManyRequests
        case 503: .unavailable
        case 504: .noAnswer
        case 507: .storageFull
        case 400..<500: .malformed
        default: .internal
        }
        return FarmError(code, message ?? status.reasonPhrase)
    }
}

/// `{"error": {"code", "message"}}`, and what else a refusal carries (`problems`, `missing`).
struct RefusalBody: Encodable {
    var error: FarmError
    var problems: [Problem]?
    var missing: [String]?

    static func encode(_ error: FarmError, problems: [Problem]? = nil, missing: [String]? = nil) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(RefusalBody(error: error, problems: problems, missing: missing))
    }
}
