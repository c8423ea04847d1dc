import Foundation
import ReelTestSupport
import RenderEngine
import SessionKit
import Synchronization
import Testing

/// Sources by URL, the parts that are pure values: parsing, redaction, which addresses a
/// farm refuses, and how announced ranges become requests. Nothing here opens a socket:
/// the refusals are checked on the resolver's answer, before any connection.
@Suite struct URLPolicyTests {
    private func url(_ text: String) throws -> MediaURL { try MediaURL.parse(text).get() }

    @Test func aQueryIsRedactedEverywhereItIsShown() throws {
        let signed = try url("https://bucket.s3.amazonaws.com/clips/a.mp4?X-Amz-Signature=abc123&X-Amz-Credential=key")
        #expect(signed.redacted == "https://bucket.s3.amazonaws.com/clips/a.mp4?…")
        #expect(!signed.description.contains("abc123"))
        #expect(signed.object == "https://bucket.s3.amazonaws.com/clips/a.mp4")
        #expect(MediaURL.redact("clips/a.mp4?not-a-url") == "clips/a.mp4?not-a-url")
        #expect(MediaURL.redact("https://h/a.mp4#frag") == "https://h/a.mp4")
        // A user name and password are never shown, also in the refusal of such a URL.
        #expect(MediaURL.redact("https://user:hunter2@h/a.mp4?sig=1") == "https://…@h/a.mp4?…")
        guard case .failure(let withPassword) = MediaURL.parse("https://user:hunter2@h/a.mp4") else {
            Issue.record("a URL with a password was taken")
            return
        }
        #expect(!withPassword.description.contains("hunter2") && withPassword.description.contains("user name or password"))
        let session = Session(video: SessionVideo(videoSegments: [SessionVideoSegment(source: signed.string)]))
        let redacted = session.redactingURLs()
        #expect(redacted.video?.videoSegments.first?.source == "https://bucket.s3.amazonaws.com/clips/a.mp4?…")
    }

    @Test func onlyHTTPAndHTTPSWithoutCredentialsInTheAuthority() {
        for bad in ["ftp://h/a.mp4", "http:///a.mp4", "https://user:pw@h/a.mp4", "https://h/a b.mp4", "https://h:0/a.mp4"] {
            #expect(throws: (any Error).self, "\(bad)") { try MediaURL.parse(bad).get() }
        }
        #expect(MediaURL.isURL("HTTPS://h/a.mp4"))
        #expect(!MediaURL.isURL("media/http.mp4"))
        #expect((try? MediaURL.parse("http://[::1]:8080/a.mp4").get())?.host == "::1")
        #expect((try? MediaURL.parse("https://Example.COM/a.mp4").get())?.port == 443)
    }

    @Test func internalAddressesAreNamed() {
        let expected: [(String, String?)] = [
            ("127.0.0.1", "loopback"), ("127.255.0.9", "loopback"), ("10.1.2.3", "private"), ("172.16.0.1", "private"),
            ("172.31.255.255", "private"), ("192.168.1.1", "private"), ("169.254.169.254", "link-local"),
            ("100.64.0.1", "shared (carrier-grade NAT)"), ("0.0.0.0", "unspecified"), ("224.0.0.1", "multicast"),
            ("::1", "loopback"), ("::", "unspecified"), ("fd00::1", "private (unique local)"), ("fe80::1", "link-local"),
            ("::ffff:10.0.0.1", "private"), ("::ffff:8.8.8.8", nil), ("64:ff9b::a9fe:a9fe", "link-local"),
            ("8.8.8.8", nil), ("172.32.0.1", nil), ("100.128.0.1", nil), ("2a00:1450::1", nil),
            // IPv6 forms that carry an IPv4 address are as internal as it is, and never public.
            ("::127.0.0.1", "loopback"), ("::ffff:0:7f00:1", "loopback"), ("::ffff:0:a00:1", "private"),
            ("::8.8.8.8", "reserved (IPv4-compatible)"), ("::ffff:0:808:808", "reserved (IPv4-translated)"),
            ("2002:7f00:1::", "loopback"), ("2002:a9fe:a9fe::1", "link-local"), ("2002:808:808::", nil),
            ("64:ff9b:1::a00:1", "private (local-use NAT64)"), ("2001:0:4136:e378::1", "reserved (Teredo)"),
            ("2001:db8::1", "reserved (documentation)"), ("100::1", "reserved (discard)"),
        ]
        for (address, kind) in expected { #expect(IPAddressKind.internalKind(of: address) == kind, "\(address)") }
    }

    /// The resolver is the policy's only contact with the outside: a stand-in answers, and
    /// no address is ever connected to.
    @Test func internalAddressesAreRefusedUnlessTheHostIsAllowedByName() throws {
        let open = URLPolicy()
        let metadata = try url("http://169.254.169.254/latest/meta-data/?token=x")
        guard case .failure(let refused) = open.addresses(for: metadata, resolve: { host, _ in [host] }) else {
            Issue.record("the metadata service was allowed")
            return
        }
        #expect(refused.kind == .refused)
        #expect(refused.message.contains("link-local") && !refused.message.contains("--allow-url-host"))
        #expect(!refused.message.contains("token=x"))

        // A public name that resolves to a private address (DNS pointing inward) is refused too.
        let inward = try url("https://media.example.com/a.mp4")
        let answer: (String, Int) throws -> [String] = { _, _ in ["93.184.216.34", "10.0.0.7"] }
        #expect((try? open.addresses(for: inward, resolve: answer).get()) == nil)
        let listed = URLPolicy(allowedHosts: ["media.example.com"])
        #expect((try? listed.addresses(for: inward, resolve: answer).get()) == ["93.184.216.34", "10.0.0.7"])

        // A list allows only what it names; `*.` its subdomains.
        let buckets = URLPolicy(allowedHosts: ["*.s3.amazonaws.com"])
        let public1: (String, Int) throws -> [String] = { _, _ in ["52.216.1.1"] }
        #expect((try? buckets.addresses(for: try url("https://b.s3.amazonaws.com/a.mp4"), resolve: public1).get()) != nil)
        guard case .failure(let other) = buckets.addresses(for: try url("https://evil.example/a.mp4"), resolve: public1) else {
            Issue.record("a host off the list was allowed")
            return
        }
        #expect(other.message.contains("not allowed"))
        // A refusal is read by the tenant: the operator's list and what a name resolved to stay out of it.
        #expect(!other.message.contains("s3.amazonaws.com") && !other.message.contains("--allow"), "\(other.message)")
        guard case .failure(let pointingInward) = open.addresses(for: inward, resolve: answer) else { return }
        #expect(!pointingInward.message.contains("10.0.0.7") && pointingInward.message.contains("private"), "\(pointingInward.message)")
        // The real resolver on names that never leave the machine: literals and /etc/hosts.
        #expect((try? open.addresses(for: try url("http://127.0.0.1:9/a.mp4")).get()) == nil)
        #expect((try? open.addresses(for: try url("http://localhost:9/a.mp4")).get()) == nil)
        #expect((try? URLPolicy(allowedHosts: ["127.0.0.1"]).addresses(for: try url("http://127.0.0.1:9/a.mp4")).get()) == ["127.0.0.1"])
    }

    /// An allowed host is allowed on the ports its entry names: `HOST:PORT` (`[V6]:PORT`)
    /// only that one, a bare host any (an allowed 127.0.0.5 used to open its port 22 too).
    @Test func anEntryWithAPortAllowsOnlyThatPort() throws {
        let policy = URLPolicy(allowedHosts: ["127.0.0.5:8080", "[::1]:9000", "MinIO.internal", "*.cdn.example:443"])
        for (text, allowed) in [("http://127.0.0.5:8080/a.mp4", true), ("http://127.0.0.5:22/a.mp4", false), ("http://127.0.0.5/a.mp4", false),
                                ("http://[::1]:9000/a.mp4", true), ("http://[::1]:9001/a.mp4", false),
                                ("http://minio.internal:9999/a.mp4", true), ("https://a.cdn.example/a.mp4", true),
                                ("http://a.cdn.example:8443/a.mp4", false)] {
            #expect(policy.lists(try url(text)) == allowed, "\(text)")
            #expect(((try? policy.checkByName(try url(text)).get()) != nil) == allowed, "\(text)")
        }
    }

    /// What the coordinator checks of a still request's pinned origins, on its loop:
    /// names and literals only, never a lookup.
    @Test func checkingByNameRefusesUnlistedHostsAndInternalLiterals() throws {
        let open = URLPolicy()
        #expect((try? open.checkByName(try url("https://media.example.com/a.mp4")).get()) != nil, "a name is left to the worker")
        for literal in ["http://127.0.0.1:8080/a.mp4", "http://[::1]/a.mp4", "http://169.254.169.254/x", "http://10.1.2.3/a.mp4"] {
            #expect((try? open.checkByName(try url(literal)).get()) == nil, "\(literal)")
        }
        let listed = URLPolicy(allowedHosts: ["127.0.0.1"])
        #expect((try? listed.checkByName(try url("http://127.0.0.1:8080/a.mp4")).get()) != nil)
        #expect((try? listed.checkByName(try url("https://media.example.com/a.mp4")).get()) == nil)
    }

    @Test func announcedRangesJoinAcrossSmallGapsOnly() {
        let ranges: [Range<Int64>] = [0..<100, 5000..<5100, 100..<200, 9000..<9100, 20_000..<20_050]
        #expect(ByteRanges.merged(ranges, within: 30_000, longest: 1 << 20) == [0..<200, 5000..<5100, 9000..<9100, 20_000..<20_050])
        #expect(ByteRanges.merged(ranges, within: 30_000, longest: 1 << 20, gap: 4096) == [0..<200, 5000..<9100, 20_000..<20_050])
        #expect(ByteRanges.merged(ranges, within: 30_000, longest: 4000, gap: 4096) == [0..<200, 5000..<5100, 9000..<9100, 20_000..<20_050])
        #expect(ByteRanges.index(of: 5050, in: [0..<200, 5000..<9100]) == 1)
        #expect(ByteRanges.index(of: 300, in: [0..<200, 5000..<9100]) == nil)
    }
}

/// One origin that hangs holds only its host's share of the connections
/// (`connectionsPerHost`; docs/operations.md, "Sources by URL"): another origin is read at
/// once. With no share per host, two hanging reads took both connections of a pool of two.
@Suite struct OriginConnectionShareTests {
    /// A loopback listener that accepts and never answers, counting connections.
    final class Silent: @unchecked Sendable {
        let port: Int
        private let fd: Int32
        private let accepted = Accepted()
        var connections: [Date] { accepted.times.withLock { $0 } }

        final class Accepted: Sendable { let times = Mutex<[Date]>([]) }

        init() throws {
            guard let (fd, port) = LoopbackPort.listener() else { throw EngineError("cannot listen") }
            (self.fd, self.port) = (fd, port)
            let accepted = accepted
            Thread {
                while true {
                    let connection = accept(fd, nil, nil)
                    guard connection >= 0 else { return }
                    accepted.times.withLock { $0.append(Date()) }   // held open, never answered
                }
            }.start()
        }

        deinit { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
    }

    /// A client of two connections that gives a read 3 s and one try, allowed on loopback.
    static func pairOfConnections(perHost: Int, perTenant: Int = 2) -> OriginClient {
        var limits = OriginClient.Limits()
        limits.connections = 2
        limits.connectionsPerHost = perHost
        limits.connectionsPerTenant = perTenant
        limits.readTimeout = 3
        limits.stallTimeout = 3
        limits.attempts = 1
        return OriginClient(policy: URLPolicy(allowedHosts: ["127.0.0.1", "localhost"]), limits: limits)
    }

    @Test func aHangingOriginHoldsOnlyItsHostsShare() throws {
        let hanging = try Silent(), other = try Silent()
        let client = Self.pairOfConnections(perHost: 1)
        let started = Date()
        for _ in 0..<2 {
            Thread { _ = try? client.open(try MediaURL.parse("http://127.0.0.1:\(hanging.port)/a.mp4").get()) }.start()
        }
        _ = try? client.open(try MediaURL.parse("http://localhost:\(other.port)/a.mp4").get())
        // The other origin was connected to at once, not after the hanging reads gave up.
        let first = try #require(other.connections.first)
        #expect(first.timeIntervalSince(started) < 2, "\(first.timeIntervalSince(started)) s")
        // Until then the hanging host held one connection: its second read waited for its share.
        let before = hanging.connections.filter { $0 <= first }.count
        #expect(before <= 1, "the hanging host got \(before) connections before the other was read")
    }
}

/// One tenant's hanging reads hold only its share of the connections, whatever their hosts
/// (`connectionsPerTenant`, `onBehalf(of:)`): another tenant's read goes on at once. With
/// no share per tenant, two hanging reads of one tenant took both connections of a pool of two.
@Suite struct OriginTenantShareTests {
    @Test func aTenantsHangingReadsHoldOnlyItsShare() throws {
        let hanging = try OriginConnectionShareTests.Silent(), other = try OriginConnectionShareTests.Silent()
        let client = OriginConnectionShareTests.pairOfConnections(perHost: 2, perTenant: 1)
        let started = Date()
        let slow = client.onBehalf(of: "tenant-a")
        let calling = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            Thread {
                calling.signal()
                _ = try? slow.open(try MediaURL.parse("http://127.0.0.1:\(hanging.port)/a.mp4").get())
            }.start()
        }
        // Tenant a's reads are under way (one connected) before tenant b's starts.
        for _ in 0..<2 { calling.wait() }
        while hanging.connections.isEmpty, Date().timeIntervalSince(started) < 2 { usleep(1000) }
        _ = try? client.onBehalf(of: "tenant-b").open(try MediaURL.parse("http://localhost:\(other.port)/a.mp4").get())
        let first = try #require(other.connections.first)
        #expect(first.timeIntervalSince(started) < 2, "\(first.timeIntervalSince(started)) s")
        let before = hanging.connections.filter { $0 <= first }.count
        #expect(before <= 1, "tenant a got \(before) connections before tenant b's read")
    }
}
