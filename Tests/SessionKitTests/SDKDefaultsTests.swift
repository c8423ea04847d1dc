import Foundation
import Testing
@testable import SessionKit

/// Sessions as the SDK writes them: integer ids, no frame duration, no render size.
@Suite struct SDKDefaultsTests {
    @Test(arguments: [(#"42"#, SessionID.integer(42)), (#""A-1""#, SessionID.string("A-1"))])
    func sessionIDIsAnIntegerOrAStringAndWrittenBackAsRead(json: String, id: SessionID) throws {
        let session = try SessionDocument.decode(Data(#"{"sessionID": \#(json), "image": {"source": "p.jpg"}}"#.utf8))
        #expect(session.sessionID == id)
        let encoded = String(decoding: try SessionDocument.encode(session), as: UTF8.self)
        #expect(encoded.contains(#""sessionID" : \#(json)"#), "\(encoded)")
    }

    @Test func aSessionIDThatIsNeitherIsRefusedWithItsPath() {
        #expect(throws: SessionDocumentError.self) {
            try SessionDocument.decode(Data(#"{"sessionID": [1], "image": {"source": "p.jpg"}}"#.utf8))
        }
        do {
            _ = try SessionDocument.decode(Data(#"{"sessionID": 1.5, "image": {"source": "p.jpg"}}"#.utf8))
            Issue.record("1.5 was accepted")
        } catch {
            #expect(error.description.hasPrefix("sessionID: expected an integer or a string"), "\(error)")
        }
    }

    /// The SDK picks the shortest segment frame duration: 24 and 60 fps segments render at 60.
    @Test func frameRateDefaultsToTheFastestSegment() throws {
        let session = Fixtures.session([SessionVideoSegment(source: "a"), SessionVideoSegment(source: "b")])
        let t = try Timeline(session: session, media: ["a": Fixtures.media(fps: 24), "b": Fixtures.media(fps: 60)])
        #expect(t.frameRate == Rational(60))
        #expect(t.origins.frameDuration == "video.videoSegments[1]: its source's nominal rate")
        #expect(t.segments[0].frameCount == 600 && t.segments[1].frameCount == 600)
    }

    @Test func aSegmentsOwnFrameDurationCountsAndVideoFrameDurationWins() throws {
        var segments = [SessionVideoSegment(source: "a", frameDuration: SessionTime(value: 1, timescale: 50)),
                        SessionVideoSegment(source: "b")]
        let media = ["a": Fixtures.media(fps: 24), "b": Fixtures.media(fps: 30)]
        var t = try Timeline(session: Fixtures.session(segments), media: media)
        #expect(t.frameRate == Rational(50) && t.origins.frameDuration == "video.videoSegments[0].frameDuration")
        t = try Timeline(session: Fixtures.session(segments, frameDuration: SessionTime(value: 1, timescale: 25)), media: media)
        #expect(t.frameRate == Rational(25) && t.origins.frameDuration == "video.frameDuration")
        segments[0].frameDuration = nil
        let unknown = MediaInfo(duration: Rational(10), frameDuration: nil, codedWidth: 640, codedHeight: 360)
        t = try Timeline(session: Fixtures.session(segments), media: ["a": unknown, "b": Fixtures.media(fps: 24)])
        #expect(t.frameRate == Rational(30))
        #expect(t.origins.frameDuration.hasPrefix("video.videoSegments[0]: 1/30 s"))
    }

    /// The SDK's render size is the first segment's crop, else its oriented picture.
    @Test func renderSizeDefaultsToTheFirstSegmentsCrop() throws {
        let cropped = SessionVideoSegment(source: "a", cropRect: Rect(x: 100, y: 50, width: 801, height: 451))
        var t = try Timeline(session: Fixtures.session([cropped, SessionVideoSegment(source: "a")]), media: ["a": Fixtures.media()])
        #expect((t.renderWidth, t.renderHeight) == (800, 450))
        #expect(t.origins.renderSize == "video.videoSegments[0].cropRect")
        let portrait = Fixtures.media(transform: SessionTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0))
        t = try Timeline(session: Fixtures.session([SessionVideoSegment(source: "a")]), media: ["a": portrait])
        #expect((t.renderWidth, t.renderHeight) == (1080, 1920))
        #expect(t.origins.renderSize == "video.videoSegments[0]: its actualSize")
        t = try Timeline(session: Fixtures.session([cropped], renderSize: Size(width: 640, height: 360)), media: ["a": Fixtures.media()])
        #expect((t.renderWidth, t.renderHeight) == (640, 360) && t.origins.renderSize == "video.renderSize")
    }

    /// The SDK's visual effects validate like every other type: by type or class name,
    /// with the slider's range named when the intensity is outside it.
    @Test func visualEffectsValidateByTypeAndClassName() {
        let session = Fixtures.session([SessionVideoSegment(source: "a", filters: [
            SessionFilter(type: "pixellate"), SessionFilter(type: "swirl", normalizedIntensity: 40),
            SessionFilter(type: "gaussianBlur", normalizedIntensity: 101), SessionFilter(type: "pinch", normalizedIntensity: -3),
            SessionFilter(type: "sepia"),
        ])])
        let report = SessionValidator().validate(session, media: ["a": .available(Fixtures.media())])
        let problems = report.problems.map(\.description)
        #expect(problems.count == 3, "\(problems)")
        #expect(problems.contains("video.videoSegments[0].filters[2].normalizedIntensity: 101 is outside 0 … 100 for 'gaussianBlur'"))
        #expect(problems.contains("video.videoSegments[0].filters[3].normalizedIntensity: -3 is outside 0 … 100 for 'pinch'"))
        #expect(problems.contains { $0.hasPrefix("video.videoSegments[0].filters[4].type: unknown filter type 'sepia' (did you mean 'sepiaTone'?); known types: ") })
    }

    @Test func nearestNamesSuggestWhatWasMeant() {
        #expect(NearestName.suggestion(for: "sepia", among: ["sepiaTone", "sharpness"]) == "sepiaTone")
        #expect(NearestName.suggestion(for: "gausianBlur", among: ["gaussianBlur", "bulge"]) == "gaussianBlur")
        #expect(NearestName.suggestion(for: "SWIRL", among: ["swirl"]) == "swirl")
        #expect(NearestName.suggestion(for: "zzzz", among: ["swirl", "bulge"]) == nil)
    }
}
