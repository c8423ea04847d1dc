import Foundation
import ReelTestSupport
import RenderEngine
import Testing

/// docs/operations.md, "Tenants": a request body must keep coming, and one upload has a
/// size cap, also when its body does not say its length. Raw sockets on loopback, as a
/// hostile client sends.
@Suite(.serialized) struct BodyLimitsTests {
    static let contentID = "sha256:" + String(repeating: "ab", count: 32)

    /// A body trickled a byte every half second is closed once the server has waited
    /// `--body-timeout` (2 s here) in all and had far less than `--min-body-rate`; a silent
    /// body after its timeout; an upload at a fair rate beside them is taken whole.
    @Test func aSlowBodyIsClosedAfterItsDeadline() throws {
        let farm = try FarmFixture()
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--body-timeout", "2", "--min-body-rate", "1024"])
        let base = try farm.apiBase()
        let port = try #require(URLComponents(string: base)?.port)
        let head = ["Content-Length": "100000"]
        let trickled = try OpenHTTPStream(port: port, path: "/v1/media/\(Self.contentID)", method: "PUT", headers: head)
        let silent = try OpenHTTPStream(port: port, path: "/v1/media/\(Self.contentID.dropLast(2) + "cd")", method: "PUT", headers: head)
        silent.send(Data(repeating: 1, count: 10))
        let started = Date()
        var closedAfter: Double?
        while closedAfter == nil, Date().timeIntervalSince(started) < 15 {
            // The client under test: a byte, then half a second of nothing.
            if !trickled.send(Data([7])) || trickled.closedByServer(within: 0.5) { closedAfter = Date().timeIntervalSince(started) }
        }
        let after = try #require(closedAfter, "a body of 2 bytes a second was never closed")
        #expect(after >= 1.5 && after < 6, "closed after \(after) s")
        #expect(silent.closedByServer(within: 5), "a silent body is closed after its timeout")
        #expect(!trickled.text.hasPrefix("HTTP/1.1 2"), "nothing was taken: \(trickled.text.prefix(100))")
        // A fair upload is unaffected, and the trickled one left no scratch file behind.
        let data = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let id = "sha256:" + Digest.sha256(data)
        let put = try HTTPExchange.send("PUT", "\(base)/media/\(id)", body: data)
        #expect(put.status == 200 || put.status == 201, "\(put.status) \(put.text)")
        let head404 = try HTTPExchange.send("HEAD", "\(base)/media/\(Self.contentID)")
        #expect(head404.status == 404 && head404.headers["upload-offset"] == "0", "\(head404.status) \(head404.headers)")
    }

    /// A chunked upload with no declared length is refused with 413 `tooLarge` as soon as it
    /// passes `--max-upload` (1 MiB here), while the client is still sending, and the
    /// connection is closed; nothing of it stays on disk. A declared length past the cap is
    /// refused before a byte is read.
    @Test func anUploadPastMaxUploadIsRefusedWhileStreaming() throws {
        let farm = try FarmFixture()
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--max-upload", "1"])
        let base = try farm.apiBase()
        let port = try #require(URLComponents(string: base)?.port)
        let stream = try OpenHTTPStream(port: port, path: "/v1/media/\(Self.contentID)", method: "PUT",
                                        headers: ["Transfer-Encoding": "chunked"])
        let piece = Data(repeating: 9, count: 64 << 10)
        var sent = 0
        // Up to 64 MiB: far past the cap, and what a server without one would take whole.
        while sent < 64 << 20, stream.send(Data(String(piece.count, radix: 16).utf8) + Data("\r\n".utf8) + piece + Data("\r\n".utf8)) {
            sent += piece.count
            if stream.read(until: "\r\n\r\n", seconds: 0.01) { break }
        }
        #expect(stream.read(until: "}}", seconds: 10) && stream.text.hasPrefix("HTTP/1.1 413"), "\(stream.text.prefix(300))")
        #expect(HostileClientTests.refusalCode(stream.text) == "tooLarge", "\(stream.text)")
        #expect(sent < 8 << 20, "refused while streaming, after \(sent) bytes")
        #expect(stream.closedByServer(within: 5), "the rest of the body is not read")
        let head = try HTTPExchange.send("HEAD", "\(base)/media/\(Self.contentID)")
        #expect(head.headers["upload-offset"] == "0", "nothing kept: \(head.headers)")
        let declared = try HTTPExchange.send("PUT", "\(base)/media/\(Self.contentID)", headers: ["Content-Range": "bytes 0-9/2000000"],
                                             body: Data(count: 10))
        #expect(declared.status == 413, "\(declared.status) \(declared.text)")
    }
}
