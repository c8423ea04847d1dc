import Foundation
import SessionKit

/// Which origins a process reads URLs from (docs/operations.md, "Sources by URL"): a
/// submitted session must not make the farm fetch its internal services. A host is
/// resolved here, before any connection, and the connection goes to the addresses checked
/// (a second lookup cannot swap them). Without `--allow-url-host`, any host whose every
/// address is public may be read; with it, only the hosts listed. A listed host may resolve
/// to internal addresses: that is how an operator allows an origin on the private network.
public struct URLPolicy: Sendable, Hashable {
    /// Host names or IP literals as given; `*.example.com` allows its subdomains, and
    /// `HOST:PORT` (`[V6]:PORT`) only that port of the host, where a bare host allows any.
    public let allowedHosts: [String]
    private let allowed: [(host: String, port: Int?)]

    public init(allowedHosts: [String] = []) {
        self.allowedHosts = allowedHosts
        allowed = allowedHosts.map(Self.entry)
    }

    public static func == (a: URLPolicy, b: URLPolicy) -> Bool { a.allowedHosts == b.allowedHosts }
    public func hash(into hasher: inout Hasher) { hasher.combine(allowedHosts) }

    /// `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 literal, lowercased.
    static func entry(_ text: String) -> (host: String, port: Int?) {
        let text = text.lowercased()
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let rest = text[text.index(after: close)...]
            return (String(text[text.index(after: text.startIndex)..<close]), rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, let port = Int(parts[1]) { return (String(parts[0]), port) }
        return (text, nil)
    }

    /// Whether `url`'s host, and its port where the entry names one, is allowed by name.
    public func lists(_ url: MediaURL) -> Bool {
        allowed.contains { entry in
            (entry.host == url.host || (entry.host.hasPrefix("*.") && url.host.hasSuffix(entry.host.dropFirst())))
                && (entry.port.map { $0 == url.port } ?? true)
        }
    }

    /// What can be told of `url` without resolving its host: refused when the farm lists
    /// hosts and this is not one, or when it is an internal address literal not listed.
    /// A refusal is read by whoever submitted the URL: it names neither the operator's list,
    /// nor the options that change it, nor any address the host resolved to.
    public func checkByName(_ url: MediaURL) -> Result<Void, OriginError> {
        let listed = lists(url)
        if !allowedHosts.isEmpty, !listed {
            return .failure(OriginError(.refused, "\(url.redacted): host \(url.host) is not allowed on this farm"))
        }
        if !listed, let kind = IPAddressKind.internalKind(of: url.host) {
            return .failure(Self.internalRefusal(url, kind))
        }
        return .success(())
    }

    private static func internalRefusal(_ url: MediaURL, _ kind: String) -> OriginError {
        OriginError(.refused, "\(url.redacted): \(url.host) is or resolves to a \(kind) address, which this farm "
            + "reads only from hosts its operator allows by name")
    }

    /// The addresses `url` may be read from, or why it may not.
    public func addresses(for url: MediaURL, resolve: (String, Int) throws -> [String] = HostResolver.resolve(_:port:)) -> Result<[String], OriginError> {
        if case .failure(let refused) = checkByName(url) { return .failure(refused) }
        let listed = lists(url)
        let addresses: [String]
        do {
            addresses = try resolve(url.host, url.port)
        } catch {
            return .failure(OriginError(.unreachable, "\(url.redacted): \(error)"))
        }
        guard !addresses.isEmpty else { return .failure(OriginError(.unreachable, "\(url.redacted): \(url.host) has no address")) }
        if !listed, let kind = addresses.lazy.compactMap(IPAddressKind.internalKind(of:)).first {
            return .failure(Self.internalRefusal(url, kind))
        }
        return .success(addresses)
    }
}

/// Names the address ranges a farm never reads from unless told to by name.
public enum IPAddressKind {
    /// "loopback", "private", "link-local" … for an internal address; `nil` for a public one
    /// (and for text that is not an address, which the resolver never returns).
    public static func internalKind(of address: String) -> String? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 || isLegacyIPv4(address, &v4) {
            return kind(ofIPv4: withUnsafeBytes(of: v4.s_addr) { Array($0) })
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        return kind(ofIPv6: withUnsafeBytes(of: v6) { Array($0) })
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a name.
    public static func isLiteral(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1 || isLegacyIPv4(host, &v4)
    }

    /// The older IPv4 spellings resolvers and libcurl still accept — one number
    /// (`2852039166`), hex or octal parts (`0xa9.0xfe.0xa9.0xfe`), fewer than four parts
    /// (`169.254.43518`) — are addresses too, never names: `inet_aton` reads them.
    static func isLegacyIPv4(_ host: String, _ address: inout in_addr) -> Bool {
        guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == "x" || $0 == "X" }),
              host.first?.isNumber == true else { return false }
        return inet_aton(host, &address) != 0
    }

    static func kind(ofIPv4 b: [UInt8]) -> String? {
        switch (b[0], b[1]) {
        case (0, _): "unspecified"
        case (10, _): "private"
        case (100, 64...127): "shared (carrier-grade NAT)"
        case (127, _): "loopback"
        case (169, 254): "link-local"
        case (172, 16...31): "private"
        case (192, 168): "private"
        case (192, 0) where b[2] == 0: "IETF protocol"
        case (198, 18...19): "benchmarking"
        case (224...239, _): "multicast"
        case (240...255, _): "reserved"
        default: nil
        }
    }

    /// IPv6, and every IPv6 form that carries an IPv4 address: an embedded internal IPv4
    /// address is as internal as itself (a stack or a gateway may deliver it there).
    static func kind(ofIPv6 b: [UInt8]) -> String? {
        let v4 = Array(b[12..<16])
        if b[0..<15].allSatisfy({ $0 == 0 }) { return b[15] == 1 ? "loopback" : b[15] == 0 ? "unspecified" : "reserved" }
        if b[0..<10].allSatisfy({ $0 == 0 }), b[10] == 0xFF, b[11] == 0xFF { return kind(ofIPv4: v4) }   // ::ffff:a.b.c.d
        // ::a.b.c.d (IPv4-compatible, deprecated) and ::ffff:0:a.b.c.d (IPv4-translated): never public.
        if b[0..<12].allSatisfy({ $0 == 0 }) { return kind(ofIPv4: v4) ?? "reserved (IPv4-compatible)" }
        if b[0..<8].allSatisfy({ $0 == 0 }), b[8] == 0xFF, b[9] == 0xFF, b[10] == 0, b[11] == 0 {
            return kind(ofIPv4: v4) ?? "reserved (IPv4-translated)"
        }
        if b[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return kind(ofIPv4: v4) }   // NAT64
        if b[0..<6] == [0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01] { return "private (local-use NAT64)" }   // 64:ff9b:1::/48
        if b[0] == 0x20, b[1] == 0x02 { return kind(ofIPv4: Array(b[2..<6])) }   // 6to4: 2002:a.b.c.d::
        if b[0..<4] == [0x20, 0x01, 0x00, 0x00] { return "reserved (Teredo)" }   // its IPv4 is obfuscated: never read
        if b[0..<4] == [0x20, 0x01, 0x0D, 0xB8] { return "reserved (documentation)" }
        if b[0..<8] == [0x01, 0, 0, 0, 0, 0, 0, 0] { return "reserved (discard)" }
        if b[0] & 0xFE == 0xFC { return "private (unique local)" }
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return "link-local" }
        if b[0] == 0xFE, b[1] & 0xC0 == 0xC0 { return "site-local" }
        if b[0] == 0xFF { return "multicast" }
        return nil
    }
}

/// Host names to addresses with the system's resolver (literals come back as they are).
public enum HostResolver {
    public static func resolve(_ host: String, port: Int) throws -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else { throw EngineError("cannot resolve \(host): \(String(cString: gai_strerror(status)))") }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var entry = list
        while let e = entry {
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if let address = e.pointee.ai_addr {
                switch e.pointee.ai_family {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { var a = $0.pointee.sin_addr; inet_ntop(AF_INET, &a, &text, socklen_t(text.count)) }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { var a = $0.pointee.sin6_addr; inet_ntop(AF_INET6, &a, &text, socklen_t(text.count)) }
                default: break
                }
            }
            let string = String(cString: text)
            if !string.isEmpty, !addresses.contains(string) { addresses.append(string) }
            entry = e.pointee.ai_next
        }
        return addresses
    }
}
