import Crypto
import Foundation
import ReelTestSupport
import Synchronization

/// nginx from the Debian packages serving a directory on a loopback port, as an object
/// store does: byte ranges, ETags, If-Match. One process (`master_process off`), its
/// configuration written here, its access log read back to count what the farm fetched.
final class NginxOrigin {
    let port: Int
    let root: URL
    private let directory: URL
    private let process: Process

    static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") }

    init(root: URL, scratch: URL) throws {
        self.root = root
        directory = scratch.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = LoopbackPort.free()
        let d = directory.path
        let config = """
            daemon off;
            master_process off;
            pid \(d)/nginx.pid;
            error_log \(d)/error.log;
            events { worker_connections 128; }
            http {
              log_format ranges '$status $body_bytes_sent "$http_range" "$request_uri"';
              access_log \(d)/access.log ranges;
              client_body_temp_path \(d)/body; proxy_temp_path \(d)/proxy; fastcgi_temp_path \(d)/fastcgi;
              uwsgi_temp_path \(d)/uwsgi; scgi_temp_path \(d)/scgi;
              types { video/mp4 mp4; image/png png; }
              server { listen 127.0.0.1:\(port); root \(root.path); }
            }
            """
        try config.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-c", directory.appendingPathComponent("nginx.conf").path, "-p", d]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        try Self.waitUntilListening(port, while: process)
    }

    deinit {
        // SIGKILL: the test process's children may inherit a blocked SIGTERM (nginx keeps nothing).
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// `http://127.0.0.1:PORT/NAME?QUERY`: the query stands for a presigned URL's signature.
    func url(_ name: String, query: String = "X-Amz-Signature=s3cr3t-signature") -> String {
        "http://127.0.0.1:\(port)/\(name)?\(query)"
    }

    struct Logged {
        var status: Int
        var bytes: Int
        var range: String
    }

    /// Every request served so far (nginx writes a line when it finishes one).
    var requests: [Logged] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, let status = Int(parts[0]), let bytes = Int(parts[1]) else { return nil }
            return Logged(status: status, bytes: bytes, range: String(parts[2].split(separator: "\"").first ?? ""))
        }
    }

    /// Waits for the port to accept a connection (the server's readiness), or fails when
    /// the process has exited or 10 s passed.
    static func waitUntilListening(_ port: Int, while process: Process? = nil) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let process, !process.isRunning { throw Failure("the origin exited at start") }
            if LoopbackPort.accepts(port) { return }
            usleep(20_000)
        }
        throw Failure("the origin did not listen on \(port) within 10 s")
    }
}

/// An origin that misbehaves on purpose, written here: a loopback HTTP/1.1 server whose
/// answers the test scripts (503s, connections dropped mid-range, a changed object, an HTML
/// page, silence, redirects). It serves one object from memory with ranges and an ETag.
final class MisbehavingOrigin: Sendable {
    enum Behaviour: Sendable {
        case serve
        /// The next N requests get 503.
        case unavailable(Int)
        /// The next N ranged requests get their headers and half their bytes, then a closed connection.
        case dropMidBody(Int)
        /// Every request gets a 200 HTML page.
        case html
        case status(Int)
        /// Requests are read and never answered.
        case silent
        /// Every request gets its headers, then one byte every 0.8 s (for 30 s at most).
        case trickle
        /// Every request is redirected to this location.
        case redirect(String)
    }

    private struct State {
        var body: Data
        var etag: String
        var behaviour: Behaviour = .serve
        var requests = 0
        var conditionalRefusals = 0
        /// When set, a GET whose target lacks this text (the credential) gets 403.
        var credential: String?
        var credentialRefusals = 0
        /// Sent with every object answer when set.
        var cacheControl: String?
        /// Bodies PUT, by path, with whether their Content-MD5 matched.
        var received: [String: (body: Data, md5Matched: Bool)] = [:]
    }

    let port: Int
    private let listener: Int32
    private let state: Mutex<State>

    init(serving body: Data) throws {
        state = Mutex(State(body: body, etag: "\"v1-\(body.count)\""))
        guard let (fd, chosen) = LoopbackPort.listener() else { throw Failure("the misbehaving origin cannot listen") }
        listener = fd
        port = chosen
        Thread.detachNewThread { [weak self] in
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0, let self else { return }
                Thread.detachNewThread { self.serve(connection) }
            }
        }
    }

    deinit { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }

    func url(_ name: String = "clip.mp4", query: String = "sig=hush-hush") -> String { "http://127.0.0.1:\(port)/\(name)?\(query)" }

    func behave(_ behaviour: Behaviour) { state.withLock { $0.behaviour = behaviour } }

    /// Replaces the object with other bytes and a new ETag (a re-upload).
    func replace(with body: Data) { state.withLock { $0.body = body; $0.etag = "\"v2-\(body.count)\"" } }

    /// Reads must carry `credential` in their query (as a presigned URL's signature), and
    /// answers say `Cache-Control: cacheControl`.
    func require(credential: String, cacheControl: String? = nil) {
        state.withLock { $0.credential = credential; $0.cacheControl = cacheControl }
    }

    var requestCount: Int { state.withLock { $0.requests } }
    /// GETs refused with 403 for want of the credential.
    var credentialRefusals: Int { state.withLock { $0.credentialRefusals } }
    /// What was PUT at `path` (e.g. "/out.mp4"), and whether its Content-MD5 was right.
    func received(_ path: String) -> (body: Data, md5Matched: Bool)? { state.withLock { $0.received[path] } }
    /// Requests refused with 412 because their If-Match named an older version.
    var conditionalRefusals: Int { state.withLock { $0.conditionalRefusals } }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var pending = Data()
        while let head = readHead(fd, &pending) {
            if head.hasPrefix("PUT ") {
                guard receive(head, from: fd, &pending) else { return }
                continue
            }
            guard respond(to: head, on: fd) else { return }
        }
    }

    /// The request head, or nil when the peer closed.
    private func readHead(_ fd: Int32, _ pending: inout Data) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while pending.range(of: Data("\r\n\r\n".utf8)) == nil {
            let n = read(fd, &buffer, buffer.count)
            guard n > 0, pending.count < 64 << 10 else { return nil }
            pending.append(contentsOf: buffer[0..<n])
        }
        let end = pending.range(of: Data("\r\n\r\n".utf8))!.upperBound
        let head = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
        pending = Data(pending[end...])
        return head
    }

    /// Answers one request; false closes the connection.
    private func respond(to head: String, on fd: Int32) -> Bool {
        let headers = Dictionary(head.split(separator: "\r\n").dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }) { $1 }
        let target = head.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) ?? ""
        let (behaviour, body, etag, refused, cacheControl) = state.withLock { s -> (Behaviour, Data, String, Bool, String?) in
            s.requests += 1
            if let credential = s.credential, !target.contains(credential) {
                s.credentialRefusals += 1
                return (s.behaviour, s.body, s.etag, true, s.cacheControl)
            }
            let now = s.behaviour
            switch now {
            case .unavailable(let n): s.behaviour = n > 1 ? .unavailable(n - 1) : .serve
            case .dropMidBody(let n) where headers["range"] != nil: s.behaviour = n > 1 ? .dropMidBody(n - 1) : .serve
            default: break
            }
            return (now, s.body, s.etag, false, s.cacheControl)
        }
        if refused { return send(fd, status: "403 Forbidden", headers: ["Content-Type: application/xml"], body: Data("<Error/>".utf8)) }
        let caching = cacheControl.map { ["Cache-Control: \($0)"] } ?? []
        switch behaviour {
        case .silent:
            usleep(30_000_000)   // the client gives up first; the connection then closes
            return false
        case .trickle:
            let head = "HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nContent-Length: \(body.count)\r\n\r\n"
            guard Self.write(fd, Data(head.utf8)) else { return false }
            for byte in body.prefix(38) {
                usleep(800_000)
                guard Self.write(fd, Data([byte])) else { return false }
            }
            return false
        case .unavailable:
            return send(fd, status: "503 Service Unavailable", headers: [], body: Data("busy".utf8))
        case .html:
            return send(fd, status: "200 OK", headers: ["Content-Type: text/html; charset=utf-8"], body: Data("<html>sign in</html>".utf8))
        case .status(let code):
            return send(fd, status: "\(code) Refused", headers: ["Content-Type: application/xml"], body: Data("<Error/>".utf8))
        case .redirect(let location):
            return send(fd, status: "302 Found", headers: ["Location: \(location)"], body: Data())
        case .serve, .dropMidBody:
            break
        }
        if let wanted = headers["if-match"], wanted != etag {
            state.withLock { $0.conditionalRefusals += 1 }
            return send(fd, status: "412 Precondition Failed", headers: [], body: Data())
        }
        guard let range = headers["range"], let parsed = Self.range(range, size: body.count) else {
            return send(fd, status: "200 OK", headers: ["Content-Type: video/mp4", "ETag: \(etag)"] + caching, body: body)
        }
        let slice = body.subdata(in: parsed)
        let partial = ["Content-Type: video/mp4", "ETag: \(etag)", "Content-Range: bytes \(parsed.lowerBound)-\(parsed.upperBound - 1)/\(body.count)"]
            + caching
        if case .dropMidBody = behaviour {
            _ = send(fd, status: "206 Partial Content", headers: partial, body: slice, cutAfter: slice.count / 2)
            return false
        }
        return send(fd, status: "206 Partial Content", headers: partial, body: slice)
    }

    /// Takes a PUT's body (Content-Length bytes) and stores it, unless told to refuse.
    private func receive(_ head: String, from fd: Int32, _ pending: inout Data) -> Bool {
        let lines = head.split(separator: "\r\n")
        let path = String(lines.first?.split(separator: " ").dropFirst().first?.split(separator: "?").first ?? "")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard let length = headers["content-length"].flatMap(Int.init), length <= 64 << 20 else {
            return send(fd, status: "411 Length Required", headers: [], body: Data())
        }
        if headers["expect"]?.lowercased() == "100-continue" { _ = send100(fd) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while pending.count < length {
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { return false }
            pending.append(contentsOf: buffer[0..<n])
        }
        let body = Data(pending.prefix(length))
        pending = Data(pending.dropFirst(length))
        let behaviour = state.withLock { s -> Behaviour in
            s.requests += 1
            let now = s.behaviour
            if case .unavailable(let n) = now { s.behaviour = n > 1 ? .unavailable(n - 1) : .serve }
            return now
        }
        switch behaviour {
        case .unavailable: return send(fd, status: "503 Service Unavailable", headers: [], body: Data())
        case .status(let code): return send(fd, status: "\(code) Refused", headers: [], body: Data())
        default: break
        }
        let md5 = Data(Insecure.MD5.hash(data: body)).base64EncodedString()
        state.withLock { $0.received[path] = (body, headers["content-md5"] == md5) }
        return send(fd, status: "200 OK", headers: ["ETag: \"put-\(body.count)\""], body: Data())
    }

    private func send100(_ fd: Int32) -> Bool {
        let line = Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)
        return line.withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) == $0.count }
    }

    private static func range(_ header: String, size: Int) -> Range<Int>? {
        guard header.hasPrefix("bytes=") else { return nil }
        let bounds = header.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), first < size else { return nil }
        let last = Int(bounds[1]).map { min($0, size - 1) } ?? size - 1
        return first <= last ? first..<(last + 1) : nil
    }

    private func send(_ fd: Int32, status: String, headers: [String], body: Data, cutAfter: Int? = nil) -> Bool {
        let head = (["HTTP/1.1 \(status)", "Content-Length: \(body.count)", "Connection: keep-alive"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
        var bytes = Data(head.utf8)
        bytes.append(cutAfter.map { body.prefix($0) } ?? body)
        return Self.write(fd, bytes)
    }

    /// Sends all of `bytes`; false once the peer has gone.
    private static func write(_ fd: Int32, _ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                guard n > 0 else { return false }
                sent += n
            }
            return true
        }
    }
}
