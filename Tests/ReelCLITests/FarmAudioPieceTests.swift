import Foundation
import ReelTestSupport
import Testing

/// docs/rendering.md, "Audio in pieces", on a real farm: a worker killed while it renders a
/// piece of the audio track loses nothing, and the output is a one-process render's, byte
/// for byte.
@Suite struct FarmAudioPieceTests {
    @Test func aWorkerKilledDuringAnAudioPieceLeavesTheOutputIdentical() throws {
        let farm = try FarmFixture()
        // Three 40-s segments at a picture of 32×18, 10 frames a second: three pieces of
        // sound of about a second of one core each, and little picture.
        let sample = try TestEnvironment.reel(["sample", farm.path("long.mp4"), "--duration", "41", "--size", "32x18", "--fps", "10"])
        try #require(sample.status == 0, "\(sample.stderr)")
        try TestEnvironment.write("""
        {"video": {"renderSize": [32, 18], "frameDuration": {"value": 1, "timescale": 10}, "videoSegments": [
          {"source": "long.mp4", "trimDuration": 40},
          {"source": "long.mp4", "trimStartTime": 0.5, "trimDuration": 40},
          {"source": "long.mp4", "trimStartTime": 1, "trimDuration": 40}
        ]}}
        """, to: "s.json", in: farm.dir)
        try farm.startCoordinator(["--http", "127.0.0.1:0"])
        let base = try farm.apiBase()
        try farm.startWorker("a")
        let job = try farm.submit()

        // The worker's first audio piece: killed while it runs.
        func shards() throws -> [[String: Any]] {
            (try HTTPExchange.send("GET", "\(base)/jobs/\(job)/shards").json as? [[String: Any]]) ?? []
        }
        var piece: [String: Any]?
        #expect(try farm.waitUntil(60) {
            piece = try shards().first { $0["kind"] as? String == "audio" && $0["state"] as? String == "running" }
            return piece != nil
        })
        let index = try #require(piece?["index"] as? Int, "\(piece ?? [:])")
        farm.killWorker("a")
        #expect(try shards().first { $0["index"] as? Int == index }?["state"] as? String != "done", "the piece ended before the kill")

        try farm.startWorker("b")
        let fetched = try farm.fetched(job)
        #expect(fetched == (try farm.reference()), "the output differs from a one-process render")
        // Three pieces of sound, each rendered to the end once.
        let audio = try shards().filter { $0["kind"] as? String == "audio" }
        #expect(audio.count == 3 && audio.allSatisfy { $0["state"] as? String == "done" }, "\(audio)")
    }
}
