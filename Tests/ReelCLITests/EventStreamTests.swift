import Foundation
import ReelTestSupport
import Testing

/// docs/api.md, "Events": however many clients follow a job, the HTTP side holds one
/// subscription to the coordinator for it, fanned out, and drops it when the job ends.
/// Measured where it used to break: the coordinator's open file descriptors (each
/// subscription is a ZeroMQ context and socket, about 11 descriptors).
@Suite(.serialized) struct EventStreamTests {
    @Test func manyStreamsOfOneJobShareOneSubscription() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        try farm.startCoordinator(["--http", "127.0.0.1:0"])
        try farm.startWorker("slow", ["--test-shard-delay", "400"])   // the job runs while the streams open
        let base = try farm.apiBase()
        let port = try #require(URLComponents(string: base)?.port)
        var files: [String: String] = [:]
        for name in ["a.mp4", "b.mp4"] {
            let id = "sha256:" + (try ProcessRunner.run("/usr/bin/sha256sum", [farm.path(name)]).stdout.split(separator: " ").first.map(String.init) ?? "")
            files[name] = id
            #expect(try HTTPExchange.send("PUT", "\(base)/media/\(id)", body: try Data(contentsOf: URL(fileURLWithPath: farm.path(name)))).status == 201)
        }
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let body = try JSONSerialization.data(withJSONObject: ["session": session, "files": files, "settings": ["keyframeIntervalSeconds": 0.5]])
        let created = try HTTPExchange.send("POST", "\(base)/jobs", body: body)
        #expect(created.status == 201, "\(created.text)")
        let job = try #require(((created.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String)

        let coordinator = try #require(farm.coordinator?.processIdentifier)
        func descriptors() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/\(coordinator)/fd").count }
        let before = try descriptors()
        let count = 40
        var streams: [OpenHTTPStream] = []
        for _ in 0..<count {
            let stream = try OpenHTTPStream(port: port, path: "/v1/jobs/\(job)/events")
            #expect(stream.read(until: "event: progress"), "\(stream.text.prefix(300))")
            streams.append(stream)
        }
        let open = try descriptors()
        // One connection each, one subscription in all (was: about 12 per stream).
        #expect(open - before <= count + 20, "\(before) → \(open) descriptors for \(count) streams")

        // Every stream sees the end.
        for stream in streams { #expect(stream.read(until: "event: done", seconds: 120), "\(stream.text.suffix(300))") }
        streams = []
        // Once the job has ended and the clients have gone, the subscription is gone too.
        let settled = try farm.waitUntil(20) { try descriptors() <= before + 4 }
        #expect(settled, "\(before) → \((try? descriptors()) ?? -1) descriptors")
    }
}
