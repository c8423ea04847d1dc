import Farm
import Foundation

/// Bearer tokens of the HTTP API (docs/api.md, "Auth"): one per line, `TOKEN ROLE [NAME]
/// [weight=N]`, with the roles of the CURVE keys — `client` sees and cancels its own jobs,
/// `admin` all — and the holder's weight in the share of the workers (docs/operations.md,
/// "Tenants").
/// Lines starting with `#` and blank lines are skipped. A token is at least 24 characters
/// of `[A-Za-z0-9._~+/=-]`, so a guessable one is refused at start.
public struct APITokens: Sendable {
    public struct Holder: Sendable, Equatable {
        public var name: String
        public var role: PeerRole
        public var weight: Double? = nil
        /// What the coordinator records as the owner of this holder's jobs.
        public var owner: String { "token:\(name)" }
    }

    private let holders: [String: Holder]

    public init(_ holders: [String: Holder]) { self.holders = holders }

    /// The weights of the holders that name one, by the owner their jobs have.
    public var weights: [String: Double] {
        holders.values.reduce(into: [:]) { weights, holder in if let weight = holder.weight { weights[holder.owner] = weight } }
    }

    public static func load(path: String) throws -> APITokens {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw APITokenError("cannot read the token file \(path)")
        }
        return try parse(text, file: path)
    }

    static let tokenCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/=-")

    static func parse(_ text: String, file: String) throws -> APITokens {
        var holders: [String: Holder] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            let at = "\(file):\(index + 1)"
            guard fields.count >= 2 else { throw APITokenError("\(at): expected TOKEN ROLE [NAME]") }
            let token = fields[0]
            guard token.count >= 24, token.allSatisfy(tokenCharacters.contains) else {
                throw APITokenError("\(at): a token is at least 24 characters of A-Z a-z 0-9 . _ ~ + / = -")
            }
            guard let role = PeerRole(rawValue: fields[1]), role == .client || role == .admin else {
                throw APITokenError("\(at): role '\(fields[1])' is not client or admin")
            }
            guard holders[token] == nil else { throw APITokenError("\(at): the same token twice") }
            let named = fields.count > 2 && !fields[2].hasPrefix("weight=")
            let weight: Double?
            do {
                weight = try TenantWeight.parse(fields.dropFirst(named ? 3 : 2), at: at)
            } catch {
                throw APITokenError(error.description)
            }
            holders[token] = Holder(name: named ? fields[2] : "line\(index + 1)", role: role, weight: weight)
        }
        guard !holders.isEmpty else { throw APITokenError("\(file): no tokens") }
        return APITokens(holders)
    }

    /// The holder of `Authorization: Bearer TOKEN`, if any.
    public func holder(authorization: String?) -> Holder? {
        // The scheme's name is case-insensitive (RFC 9110, 11.1): `bearer` is `Bearer`.
        let parts = authorization?.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true) ?? []
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return holders[String(parts[1]).trimmingCharacters(in: .whitespaces)]
    }
}

public struct APITokenError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
