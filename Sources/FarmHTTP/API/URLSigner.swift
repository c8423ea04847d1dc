import Crypto
import Foundation

/// Short-lived signed URLs (docs/api.md, "Signed URLs"): a browser's `<video src>` or
/// `<img src>` cannot send a bearer token, so the API hands out a URL that carries its own
/// proof: `expires` (Unix seconds) and `signature`, an HMAC-SHA256 with the server's key
/// over the method, the path and the other query parameters, sorted. Verified in constant
/// time; a URL is good for its one path and parameters until it expires.
public struct URLSigner: Sendable {
    private let secret: Data
    private var key: SymmetricKey { SymmetricKey(data: secret) }

    /// A key given by the operator (the same across restarts and replicas), at least 16 bytes.
    public init(secret: Data) { self.secret = secret }

    /// A key of this process only: its URLs stop working when it restarts.
    public static func random() -> URLSigner { URLSigner(secret: Data((0..<32).map { _ in UInt8.random(in: .min ... .max) })) }

    /// The query parameter naming the token holder that signed a URL (docs/operations.md,
    /// "Tenants"): covered by the signature like every other parameter.
    static let signerKey = "by"

    /// The longest a URL may live (7 days), and the default (1 hour).
    public static let longest = 7 * 86_400
    public static let standard = 3_600

    /// `path?…&expires=T&signature=S` for a GET of `path` with `query` until `expires`.
    func sign(path: String, query: [(String, String)], expires: Int) -> String {
        let all = query + [("expires", String(expires))]
        let mac = HMAC<SHA256>.authenticationCode(for: Data(Self.canonical(path: path, query: all).utf8), using: key)
        let items = (all + [("signature", Data(mac).map { String(format: "%02x", $0) }.joined())])
            .map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }
        return path + "?" + items.joined(separator: "&")
    }

    /// Whether `query` (as received) signs a GET of `path` that has not expired at `now`.
    func verifies(path: String, query: [(String, String)], now: Double = Date().timeIntervalSince1970) -> Bool {
        guard let signature = query.last(where: { $0.0 == "signature" })?.1, let mac = Self.bytes(hex: signature),
              let expires = query.last(where: { $0.0 == "expires" }).flatMap({ Double($0.1) }), expires > now,
              expires <= now + Double(Self.longest) + 60 else { return false }
        let signed = query.filter { $0.0 != "signature" }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(Self.canonical(path: path, query: signed).utf8), using: key)
    }

    private static func canonical(path: String, query: [(String, String)]) -> String {
        "GET\n" + path + "\n" + query.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    private static func bytes(hex: String) -> Data? {
        guard hex.count == 64 else { return nil }
        var data = Data(capacity: 32)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            data.append(byte)
            index = next
        }
        return data
    }
}
