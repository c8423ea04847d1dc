import CZeroMQ
import Foundation

/// A CURVE key pair in Z85 text (40 characters each), as `reel keygen` writes it.
public struct CurveKeyPair: Sendable, Equatable {
    public let publicKey: String
    public let secretKey: String

    public static func generate() throws -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        try zmqCheck(zmq_curve_keypair(&publicKey, &secretKey), "zmq_curve_keypair")
        return CurveKeyPair(publicKey: String(cString: publicKey), secretKey: String(cString: secretKey))
    }

    /// Reads a key file (`public-key = …` and `secret-key = …` lines); the public key must
    /// belong to the secret one.
    public static func load(path: String) throws -> CurveKeyPair {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CurveKeyError("cannot read the key file \(path)")
        }
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, !parts[0].hasPrefix("#") { fields[parts[0]] = parts[1] }
        }
        guard let secret = fields["secret-key"], isKey(secret) else {
            throw CurveKeyError("\(path) has no valid secret-key line (make one with: reel keygen NAME)")
        }
        var derived = [CChar](repeating: 0, count: 41)
        try zmqCheck(zmq_curve_public(&derived, secret), "zmq_curve_public")
        let publicKey = String(cString: derived)
        if let stated = fields["public-key"], stated != publicKey {
            throw CurveKeyError("\(path): public-key does not belong to its secret-key")
        }
        return CurveKeyPair(publicKey: publicKey, secretKey: secret)
    }

    /// Writes `NAME.key` (both keys, readable by the owner only) and `NAME.pub`.
    public func write(name: String) throws {
        let fm = FileManager.default
        let keyPath = name + ".key", publicPath = name + ".pub"
        for path in [keyPath, publicPath] where fm.fileExists(atPath: path) {
            throw CurveKeyError("\(path) exists; keys are never overwritten")
        }
        let secretText = "# ReelFarm CURVE key pair: keep secret\npublic-key = \(publicKey)\nsecret-key = \(secretKey)\n"
        guard fm.createFile(atPath: keyPath, contents: Data(secretText.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CurveKeyError("cannot write \(keyPath)")
        }
        try Data((publicKey + "\n").utf8).write(to: URL(fileURLWithPath: publicPath))
    }

    /// A 40-character Z85 key.
    public static func isKey(_ text: String) -> Bool {
        guard text.utf8.count == 40 else { return false }
        var decoded = [UInt8](repeating: 0, count: 32)
        return zmq_z85_decode(&decoded, text) != nil
    }

    /// A public key given as itself or as a file holding it (`.pub`, or a `.key` file).
    public static func publicKey(_ keyOrPath: String) throws -> String {
        // A file that exists wins: a 40-character path such as
        // `/tmp/tmp.7yW4QrfJPh/keys/coordinator.pub` is also valid Z85.
        if isKey(keyOrPath) && !FileManager.default.fileExists(atPath: keyOrPath) { return keyOrPath }
        guard let text = try? String(contentsOfFile: keyOrPath, encoding: .utf8) else {
            throw CurveKeyError("'\(keyOrPath)' is neither a 40-character Z85 key nor a readable key file")
        }
        if text.contains("secret-key") { return try load(path: keyOrPath).publicKey }
        let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard isKey(key) else { throw CurveKeyError("\(keyOrPath) does not hold a 40-character Z85 public key") }
        return key
    }

    /// An allow-list: one public key per line, then its role (`worker`, `client` or
    /// `admin`), optionally followed by a name and a tenant's `weight=N`; other lines starting
    /// with `#` are comments (Z85 keys may contain `#` too, so a line is a key first), blank
    /// lines are ignored.
    public static func authorizedKeys(path: String) throws -> [String: PeerRole] {
        try authorized(path: path).roles
    }

    /// The allow-list's roles, and the weights of the keys that name one.
    public static func authorized(path: String) throws -> (roles: [String: PeerRole], weights: [String: Double]) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CurveKeyError("cannot read the authorized keys file \(path)")
        }
        var keys: [String: PeerRole] = [:]
        var weights: [String: Double] = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let tokens = line.split(whereSeparator: \.isWhitespace).map(String.init)
            let token = tokens.first ?? ""
            if isKey(token) {
                let roles = PeerRole.allCases.map(\.rawValue).joined(separator: ", ")
                guard tokens.count >= 2, let role = PeerRole(rawValue: tokens[1]) else {
                    throw CurveKeyError("\(path):\(number + 1): the key needs a role after it: \(roles)")
                }
                if let other = keys[token], other != role {
                    throw CurveKeyError("\(path):\(number + 1): the key is listed already as \(other.rawValue)")
                }
                keys[token] = role
                do {
                    weights[token] = try TenantWeight.parse(tokens.dropFirst(2), at: "\(path):\(number + 1)")
                } catch {
                    throw CurveKeyError(error.description)
                }
            } else if !token.isEmpty && !token.hasPrefix("#") {
                throw CurveKeyError("\(path):\(number + 1): not a 40-character Z85 public key")
            }
        }
        guard !keys.isEmpty else { throw CurveKeyError("\(path) lists no keys: no worker or client could connect") }
        return (keys, weights)
    }
}

public struct CurveKeyError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The coordinator's side: its key pair and the public keys allowed in, with their roles.
public struct CurveServer: Sendable {
    public var keys: CurveKeyPair
    public var authorized: [String: PeerRole]
    public init(keys: CurveKeyPair, authorized: [String: PeerRole]) {
        self.keys = keys
        self.authorized = authorized
    }
}

/// A worker's or client's side: its key pair and the coordinator's public key.
public struct CurveClient: Sendable {
    public var keys: CurveKeyPair
    public var serverKey: String
    public init(keys: CurveKeyPair, serverKey: String) {
        self.keys = keys
        self.serverKey = serverKey
    }
}

extension ZMQSocket {
    /// Encrypts and authenticates with CURVE as the server (before `bind`).
    func secure(_ server: CurveServer) throws {
        try set(ZMQ_CURVE_SERVER, Int32(1))
        try set(ZMQ_CURVE_SECRETKEY, bytes: Array(server.keys.secretKey.utf8))
        try set(ZMQ_ZAP_DOMAIN, bytes: Array(ZAPAuthenticator.domain.utf8))
    }

    /// Encrypts and authenticates with CURVE as a client (before `connect`).
    func secure(_ client: CurveClient) throws {
        try set(ZMQ_CURVE_SERVERKEY, bytes: Array(client.serverKey.utf8))
        try set(ZMQ_CURVE_PUBLICKEY, bytes: Array(client.keys.publicKey.utf8))
        try set(ZMQ_CURVE_SECRETKEY, bytes: Array(client.keys.secretKey.utf8))
    }
}
