/// `HOST:PORT` for an HTTP listener: `127.0.0.1:9464`, `0.0.0.0:9464`, `[::1]:9464`, or
/// `:9464` for every interface. Port 0 picks a free one (the log says which).
public struct HTTPAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65_535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = "0.0.0.0" }
        guard !host.contains(where: { $0 == " " || $0 == "/" }) else { return nil }
        self.host = host
        self.port = port
    }

    /// Whether only this machine can reach it.
    public var isLoopback: Bool { host == "127.0.0.1" || host == "::1" || host == "localhost" }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
