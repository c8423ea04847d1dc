import Foundation
import ReelTestSupport
import SessionKit
import Testing

@Suite struct SidecarTests {
    @Test func sidecarRoundTripsTheSessionAndNamesTheSources() throws {
        let fx = try RenderFixture()
        try fx.sample("a.mp4", ["--duration", "1", "--size", "64x48"])
        let document = """
        {"sessionID": "S-1", "dateCreated": "2026-03-04T05:06:07Z", "location": {"latitude": -33.8568, "longitude": 151.2153},
         "userInfo": {"app": "test"}, "video": {"videoSegments": [{"source": "a.mp4", "trimDuration": 0.5,
         "filters": [{"type": "brightness", "normalizedIntensity": 0.1}]}]}}
        """
        try fx.session(document)
        let out = try fx.rendered()
        let sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fx.path("out.reel.json")))) as? [String: Any]
        #expect(sidecar?["formatIdentifier"] as? String == "com.reelfarm.session")
        #expect(sidecar?["formatVersion"] as? String == "1.0")
        let sha = try ProcessRunner.run(try #require(ProcessRunner.which("sha256sum")), [fx.path("a.mp4")])
        let hex = String(sha.stdout.prefix(64))
        #expect((sidecar?["sources"] as? [String: String])?["a.mp4"] == "sha256:\(hex)")
        // The session inside reads back as the session that was rendered.
        let inner = try JSONSerialization.data(withJSONObject: try #require(sidecar?["session"]))
        #expect(try SessionDocument.decode(inner) == SessionDocument.decode(Data(document.utf8)))
        // And the output carries the creation date and location, not the wall clock.
        let tags = try ProcessRunner.run(try #require(ProcessRunner.which("ffprobe")),
                                         ["-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1", out])
        #expect(tags.stdout.contains("creation_time=2026-03-04T05:06:07"))
        #expect(tags.stdout.contains("location=-33.8568+151.2153/"))
    }
}
