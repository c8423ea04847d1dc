import Testing
@testable import FarmHTTP

/// Bearer tokens as RFC 9110 reads the Authorization header: the scheme's name in any case.
struct APITokensTests {
    @Test func theSchemeIsCaseInsensitiveAndTheTokenIsNot() throws {
        let token = "alice-token-0123456789abcdefghij"
        let tokens = try APITokens.parse("\(token) client alice\n", file: "tokens")
        for header in ["Bearer \(token)", "bearer \(token)", "BEARER \(token)", "Bearer  \(token) "] {
            #expect(tokens.holder(authorization: header)?.owner == "token:alice", "\(header)")
        }
        for header in ["Bearer \(token.uppercased())", "Basic \(token)", "Bearer", "\(token)", "Bearertoken \(token)"] {
            #expect(tokens.holder(authorization: header) == nil, "\(header)")
        }
    }
}
