import Farm
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReelTestSupport
import Testing
@testable import FarmHTTP

/// docs/api.md, "Errors": a farm error thrown anywhere under the router answers with its
/// code's one status and a JSON body that carries the code; so does every other refusal.
struct FarmErrorMiddlewareTests {
    /// The table of docs/api.md, "Errors", written out here: the statuses clients rely on.
    static let expected: [FarmErrorCode: Int] = [
        .invalidInput: 422, .malformed: 400, .versionMismatch: 502, .engineMismatch: 502, .unauthorized: 401,
        .forbidden: 403, .notOwner: 403, .noSuchJob: 404, .notFound: 404, .methodNotAllowed: 405, .alreadyEnded: 409,
        .notEnded: 409, .uploadInProgress: 409, .offsetMismatch: 409, .resultGone: 410, .tooLarge: 413,
        .unsupportedMediaType: 415, .rangeNotSatisfiable: 416, .unknownWorker: 502, .missingMedia: 409, .mediaChanged: 409,
        .originRefused: 422, .storageFull: 507, .ioFailed: 500, .cancelled: 409, .handedBack: 409, .renderFailed: 502,
        .tooManyRequests: 429, .unavailable: 503, .noAnswer: 504, .notLeader: 503, .mediaLost: 409, .handshakeFailed: 502, .internal: 500,
    ]

    @Test func everyCodeHasItsDocumentedStatus() {
        #expect(Set(Self.expected.keys) == Set(FarmErrorCode.allCases))
        for code in FarmErrorCode.allCases {
            #expect(code.httpStatus == Self.expected[code], "\(code)")
            #expect(FarmErrorMiddleware<BasicRequestContext>.status(of: code).code == Self.expected[code], "\(code)")
        }
    }

    /// docs/api.yaml's `ErrorCode` enum is the wire module's: a client generated from the
    /// spec knows every code the farm sends.
    @Test func theSpecNamesEveryCode() throws {
        let text = try String(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("docs/api.yaml"), encoding: .utf8)
        let schema = try #require(text.range(of: "\n    ErrorCode:\n"))
        let list = try #require(text[schema.upperBound...].range(of: "enum: [").flatMap { open in
            text[open.upperBound...].firstIndex(of: "]").map { text[open.upperBound..<$0] }
        })
        let named = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(named == Set(FarmErrorCode.allCases.map(\.rawValue)))
    }

    @Test func aThrownFarmErrorAnswersWithItsStatusAndCode() async throws {
        let router = Router()
        router.add(middleware: FarmErrorMiddleware())
        router.delete("jobs/:id") { _, context -> Response in
            throw FarmError(.alreadyEnded, "job \(try context.parameters.require("id")) has already ended")
        }
        router.get("plain") { _, _ -> Response in throw HTTPError(.badRequest, message: "not a farm error") }
        let app = Application(router: router)
        try await app.test(.router) { client in
            try await client.execute(uri: "/jobs/j1", method: .delete) { response in
                #expect(response.status == .conflict)
                #expect(response.headers[.contentType] == "application/json")
                let body = try JSONDecoder().decode([String: FarmError].self, from: Data(buffer: response.body))
                #expect(body["error"] == FarmError(.alreadyEnded, "job j1 has already ended"))
            }
            // Hummingbird's own refusals get the code of their status, and a body like the farm's.
            try await client.execute(uri: "/plain", method: .get) { response in
                #expect(response.status == .badRequest)
                let body = try JSONDecoder().decode([String: FarmError].self, from: Data(buffer: response.body))
                #expect(body["error"] == FarmError(.malformed, "not a farm error"))
            }
            try await client.execute(uri: "/no/such/route", method: .get) { response in
                #expect(response.status == .notFound)
                let body = try JSONDecoder().decode([String: FarmError].self, from: Data(buffer: response.body))
                #expect(body["error"]?.code == .notFound)
            }
        }
    }
}
