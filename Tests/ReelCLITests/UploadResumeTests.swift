import Foundation
import ReelTestSupport
import RenderEngine
import Testing

/// docs/api.md, "Uploading media": a resumed upload sends only the bytes the farm lacks,
/// also when it resumes before the API has noticed the dropped part. Raw sockets on
/// loopback, so the dropped part is held open as long as the test wants.
@Suite struct UploadResumeTests {
    /// A part still streaming in is not counted: `HEAD` says where the upload stood before
    /// it, though the API has written half of it. A part resumed from there while the
    /// dropped one is open waits for it to be taken back (before, it was refused at once
    /// with `uploadInProgress`), then is taken; the file completes with nothing sent twice.
    @Test func aPartStillStreamingIsNotCountedAndAResumedPartWaitsForIt() throws {
        let farm = try FarmFixture()
        try farm.startCoordinator(["--http", "127.0.0.1:0"])
        let base = try farm.apiBase()
        let port = try #require(URLComponents(string: base)?.port)
        let data = Data((0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        let id = "sha256:" + Digest.sha256(data)
        let path = "/v1/media/\(id)"
        func range(_ part: Range<Int>) -> [String: String] {
            ["Content-Range": "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(data.count)", "Content-Length": "\(part.count)"]
        }
        func head() throws -> (Int, String?) {
            let reply = try HTTPExchange.send("HEAD", base + "/media/\(id)")
            return (reply.status, reply.headers["upload-offset"])
        }

        let first = try HTTPExchange.send("PUT", base + "/media/\(id)", headers: range(0..<10_000), body: data.subdata(in: 0..<10_000))
        #expect(first.status == 202 && first.headers["upload-offset"] == "10000", "\(first.status) \(first.text)")

        // Half of the second part, then nothing: a connection about to drop.
        var dropped: OpenHTTPStream? = try OpenHTTPStream(port: port, path: path, method: "PUT", headers: range(10_000..<20_000))
        dropped?.send(data.subdata(in: 10_000..<15_000))
        let scratch = farm.stateDir.appendingPathComponent("api-uploads/\(id.dropFirst("sha256:".count)).part")
        let deadline = Date().addingTimeInterval(10)
        while Self.size(scratch) < 15_000, Date() < deadline { usleep(10_000) }
        #expect(Self.size(scratch) == 15_000, "the API writes a part as it streams in")
        #expect(try head() == (404, "10000"))

        // The client resumes where HEAD said, while the API still holds the dropped part.
        let resumed = try OpenHTTPStream(port: port, path: path, method: "PUT", headers: range(10_000..<20_000))
        resumed.send(data.subdata(in: 10_000..<20_000))
        #expect(!resumed.read(until: "\r\n\r\n", seconds: 0.5), "answered while the other part streamed: \(resumed.text)")
        dropped = nil   // the connection drops; the API takes its half back
        #expect(resumed.read(until: "}", seconds: 10), "\(resumed.text)")
        #expect(resumed.text.hasPrefix("HTTP/1.1 202"), "\(resumed.text)")
        #expect(resumed.text.lowercased().contains("upload-offset: 20000"), "\(resumed.text)")

        let last = try HTTPExchange.send("PUT", base + "/media/\(id)", headers: range(20_000..<30_000), body: data.subdata(in: 20_000..<30_000))
        #expect(last.status == 201, "\(last.status) \(last.text)")
        #expect(try head().0 == 200)
        #expect(try Data(contentsOf: farm.stateDir.appendingPathComponent("media/\(id.dropFirst("sha256:".count))")) == data)
    }

    static func size(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
