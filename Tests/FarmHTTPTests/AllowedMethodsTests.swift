import Farm
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReelTestSupport
import Testing
@testable import FarmHTTP

/// 405 with `Allow` for a known path and another method; the table is docs/api.yaml's.
struct AllowedMethodsTests {
    /// docs/api.yaml's paths (`/v1/jobs/{id}`) and methods, read from its text.
    static func specification() throws -> [String: Set<String>] {
        let text = try String(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("docs/api.yaml"), encoding: .utf8)
        var paths: [String: Set<String>] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /v1/"), line.hasSuffix(":") {
                current = String(line.dropFirst(6).dropLast()).replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: "")
                paths[current!] = []
            } else if let path = current, line.hasPrefix("    "), !line.hasPrefix("     "),
                      let method = ["get", "put", "post", "delete", "patch", "head"].first(where: { line == "    \($0):" }) {
                paths[path]?.insert(method.uppercased())
            } else if !line.hasPrefix(" "), !line.isEmpty {
                current = nil
            }
        }
        return paths
    }

    @Test func theTableIsTheSpecification() throws {
        let table = Dictionary(uniqueKeysWithValues: AllowedMethods.table.map { ($0.path, Set($0.methods.map(\.rawValue))) })
        #expect(table == (try Self.specification()))
    }

    @Test func anotherMethodOnAKnownPathIs405WithAllow() async throws {
        let dir = try TestEnvironment.scratchDirectory()
        let router = APIServer.router(gateway: FarmGateway(endpoint: "ipc://" + dir.appendingPathComponent("none.ipc").path, curve: nil),
                                      tokens: nil, uploads: dir.appendingPathComponent("state/api-uploads"))
        try await Application(router: router).test(.router) { client in
            for entry in AllowedMethods.table {
                let uri = "/v1/" + entry.path.split(separator: "/").map { $0.hasPrefix(":") ? "x1" : String($0) }.joined(separator: "/")
                for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch] where !entry.methods.contains(method) {
                    if method == .get, entry.methods.contains(.head) { continue }
                    try await client.execute(uri: uri, method: method) { response in
                        #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                        #expect(response.headers[.allow] == AllowedMethods.allowHeader(entry.methods), "\(method) \(uri)")
                    }
                }
            }
            try await client.execute(uri: "/v1/nothing/here", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
