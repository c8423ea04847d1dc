import Foundation
import ReelTestSupport
import RenderEngine
import SessionKit
import Testing
@testable import Farm

/// docs/architecture.md, "Probes by content id": kept probes are not made again, made ones
/// are kept, and an upload is probed once by the prober, which keeps nothing for a file
/// that is not media.
struct ProbeMemoryTests {
    static func clip(_ url: URL, seconds: Double) throws -> URL {
        var media = SampleMedia()
        media.duration = seconds
        media.width = 64
        media.height = 36
        try media.write(to: url.path)
        return url
    }

    @Test func aKeptProbeIsNotMadeAgainAndAMadeOneIsKept() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let store = try JobStore(path: dir.appendingPathComponent("farm.sqlite").path)
        let clip = try Self.clip(dir.appendingPathComponent("a.mp4"), seconds: 1)
        let session = Session(video: SessionVideo(videoSegments: [SessionVideoSegment(source: "a.mp4")]))
        let load = { (memory: ProbeMemory) in
            memory.load(contentIDs: ["a.mp4": "sha256:aa"]) { remembered in
                LoadedSession.make(url: dir.appendingPathComponent("s.json"), session: session, files: ["a.mp4": clip], remembered: remembered)
            }
        }
        let first = ProbeMemory(store: store)
        #expect(load(first).report.isValid)
        #expect(first.probed == 1 && first.seconds > 0)
        let kept = try #require(try store.probe(of: "sha256:aa"))
        #expect(abs(kept.duration.doubleValue - 1) < 0.05)
        // The same content id again: nothing probed, the kept probe used (even with the file gone).
        try FileManager.default.removeItem(at: clip)
        let second = ProbeMemory(store: store)
        let again = load(second)
        #expect(second.probed == 0 && second.seconds == 0)
        #expect(again.probes["a.mp4"] == kept)
    }

    @Test func theProberKeepsAnUploadsProbeOnceAndNothingForAFileThatIsNotMedia() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let store = try JobStore(path: dir.appendingPathComponent("farm.sqlite").path)
        let clip = try Self.clip(dir.appendingPathComponent("clip.mp4"), seconds: 2)
        let text = dir.appendingPathComponent("lut")
        try Data("LUT_3D_SIZE 2\\n".utf8).write(to: text)
        var logged: [String] = []
        MediaProber.probe(contentID: "sha256:01", path: clip.path, store: store) { logged.append($0) }
        MediaProber.probe(contentID: "sha256:02", path: text.path, store: store) { logged.append($0) }
        let kept = try #require(try store.probe(of: "sha256:01"))
        #expect(abs(kept.duration.doubleValue - 2) < 0.05)
        #expect(try store.probe(of: "sha256:02") == nil)
        #expect(logged.isEmpty)
        // Kept once: a second call does not probe (the file is gone, the probe stays).
        try FileManager.default.removeItem(at: clip)
        MediaProber.probe(contentID: "sha256:01", path: clip.path, store: store) { logged.append($0) }
        #expect(try store.probe(of: "sha256:01") == kept)
        try store.forgetProbes(of: ["sha256:01"])
        #expect(try store.probe(of: "sha256:01") == nil)
    }
}
