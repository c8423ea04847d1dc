import FarmCodes
import Foundation

/// What a call to the farm can end with besides its answer (docs/api.md, "Errors"). Decide
/// by the case and the code, never by the message's words.
public enum ReelFarmError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The session or request is invalid: every problem at its JSON path (HTTP 422).
    case invalid([Problem])
    /// The farm lacks these content ids (HTTP 409 on a submission): upload them first.
    /// `export` uploads them itself.
    case missingMedia([String])
    /// The farm refused or failed the call: its code (from the body when it names one,
    /// else from the status), the HTTP status and the farm's message.
    case farm(FarmErrorCode, status: Int, message: String)
    /// The job ended without an output (failed or cancelled): its last status.
    case jobEnded(JobStatus)
    /// The farm answered something that is not the API's (a proxy's page, a cut body).
    case unexpectedAnswer(status: Int, detail: String)
    /// A local file could not be read or written.
    case file(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalid(let problems): "the farm refused the request: " + problems.map(\.description).joined(separator: "; ")
        case .missingMedia(let ids): "the farm lacks \(ids.count) file(s): " + ids.joined(separator: ", ")
        case .farm(let code, let status, let message): "\(message) (HTTP \(status), \(code.rawValue))"
        case .jobEnded(let status): "job \(status.jobID) ended \(status.state.rawValue)" + (status.error.map { ": \($0)" } ?? "")
        case .unexpectedAnswer(let status, let detail): "an unexpected answer (HTTP \(status)): \(detail)"
        case .file(let path, let reason): "\(path): \(reason)"
        }
    }

    /// The code of a refusal, when the farm named one.
    public var code: FarmErrorCode? {
        switch self {
        case .farm(let code, _, _): code
        case .invalid: .invalidInput
        case .missingMedia: .missingMedia
        case .jobEnded(let status): status.errorCode
        case .unexpectedAnswer, .file: nil
        }
    }

    /// The error an HTTP answer carries (`{"error": {"code", "message"}}`, `{"problems": […]}`,
    /// `{"missing": […]}`), or a code for its status when the body names none.
    static func from(status: Int, body: Data) -> ReelFarmError {
        struct Body: Decodable {
            struct Refusal: Decodable { var code: FarmErrorCode?; var message: String? }
            var error: Refusal?
            var problems: [Problem]?
            var missing: [String]?
        }
        let decoded = try? JSONDecoder().decode(Body.self, from: body)
        if let problems = decoded?.problems, status == 422 { return .invalid(problems) }
        if let missing = decoded?.missing, status == 409 { return .missingMedia(missing) }
        guard let refusal = decoded?.error else {
            return .unexpectedAnswer(status: status, detail: String(decoding: body.prefix(200), as: UTF8.self))
        }
        return .farm(refusal.code ?? code(ofStatus: status), status: status, message: refusal.message ?? "HTTP \(status)")
    }

    /// The code a status stands for, when the body names none (docs/api.md, "Errors").
    static func code(ofStatus status: Int) -> FarmErrorCode {
        switch status {
        case 400, 422: .invalidInput
        case 401: .unauthorized
        case 403: .forbidden
        case 404: .noSuchJob
        case 409: .notEnded
        case 410: .resultGone
        case 429: .noAnswer
        case 504: .noAnswer
        case 507: .storageFull
        default: .internal
        }
    }
}
