import Farm
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import FarmHTTP

/// docs/api.md, "Errors": a farm error thrown anywhere under the router answers with its
/// code's one status and a JSON body that carries the code; other errors are untouched.
struct FarmErrorMiddlewareTests {
    /// The table of docs/protocol.md, "Errors", written out here: the statuses clients rely on.
    static let expected: [FarmErrorCode: Int] = [
        .invalidInput: 422, .malformed: 502, .versionMismatch: 502, .engineMismatch: 502, .unauthorized: 401,
        .forbidden: 403, .notOwner: 403, .noSuchJob: 404, .alreadyEnded: 409, .notEnded: 409, .resultGone: 410,
        .unknownWorker: 502, .missingMedia: 409, .mediaChanged: 409, .originRefused: 422, .storageFull: 507, .ioFailed: 500, .cancelled: 409, .handedBack: 409,
        .renderFailed: 502, .noAnswer: 504, .handshakeFailed: 502, .internal: 500,
    ]

    @Test func everyCodeHasItsDocumentedStatus() {
        #expect(Set(Self.expected.keys) == Set(FarmErrorCode.allCases))
        for code in FarmErrorCode.allCases {
            #expect(FarmErrorMiddleware<BasicRequestContext>.status(of: code).code == Self.expected[code], "\(code)")
        }
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
            try await client.execute(uri: "/plain", method: .get) { response in
                #expect(response.status == .badRequest)
            }
        }
    }
}
