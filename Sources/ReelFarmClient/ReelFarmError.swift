import FarmWire
import Foundation

/// What a call to the farm can end with besides its answer (docs/api.md, "Errors"). Decide
/// by the case and the code, never by the message's words.
public enum ReelFarmError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The session or request is invalid: every problem at its JSON path (HTTP 422).
    case invalid([Problem])
    /// The farm lacks these content ids (HTTP 409 on a submission): upload them first.
    /// `export` uploads them itself.
    case missingMedia([String])
    /// The farm refused or failed the call: the code its answer names, the HTTP status and
    /// the farm's message.
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
        case .jobEnded(let status): "job \(status.jobID) ended \(status.state.rawValue)" + (status.error.map { ": \($0.message)" } ?? "")
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
        case .jobEnded(let status): status.error?.code
        case .unexpectedAnswer, .file: nil
        }
    }

    /// The error an HTTP answer carries: every refusal of the API names its code
    /// (`{"error": {"code", "message"}}`, with `problems` for `invalidInput` and `missing`
    /// for `missingMedia`; docs/api.md, "Errors"). A body that names none is not the farm's.
    static func from(status: Int, body: Data) -> ReelFarmError {
        struct Body: Decodable {
            var error: FarmError
            var problems: [Problem]?
            var missing: [String]?
        }
        guard let decoded = try? JSONDecoder().decode(Body.self, from: body) else {
            return .unexpectedAnswer(status: status, detail: String(decoding: body.prefix(200), as: UTF8.self))
        }
        switch (decoded.error.code, decoded.problems, decoded.missing) {
        case (.invalidInput, let problems?, _): return .invalid(problems)
        case (.missingMedia, _, let missing?): return .missingMedia(missing)
        default: return .farm(decoded.error.code, status: status, message: decoded.error.message)
        }
    }
}
