import Foundation
import Testing
@testable import SessionKit

@Suite struct ValidationTests {
    private let media: [String: MediaStatus] = [
        "a": .available(Fixtures.media(seconds: 5)),
        "p": .available(Fixtures.media(seconds: 5, transform: SessionTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0))),
    ]

    private func problems(_ session: Session) -> [String] {
        SessionValidator().validate(session, media: media).problems.map(\.description)
    }

    private func problems(_ segment: SessionVideoSegment, speed: Double? = nil) -> [String] {
        problems(Fixtures.session([segment], speed: speed))
    }

    @Test func aValidSessionHasNoProblems() {
        #expect(problems(SessionVideoSegment(source: "a", trimStartTime: Fixtures.time(1), trimDuration: Fixtures.time(2))).isEmpty)
    }

    @Test func trimBeyondTheMediaNamesPathAndNumbers() {
        let p = problems(SessionVideoSegment(source: "a", trimStartTime: Fixtures.time(2), trimDuration: Fixtures.time(4.2)))
        #expect(p == ["video.videoSegments[0].trimDuration: 4.2 s exceeds duration - trimStartTime (3.0 s)"])
    }

    @Test func negativeStartAndNonPositiveDuration() {
        #expect(problems(SessionVideoSegment(source: "a", trimStartTime: Fixtures.time(-0.5))).contains(
            "video.videoSegments[0].trimStartTime: -0.5 s is negative"))
        #expect(problems(SessionVideoSegment(source: "a", trimDuration: Fixtures.time(0))).contains(
            "video.videoSegments[0].trimDuration: 0.0 s must be greater than 0"))
        #expect(problems(SessionVideoSegment(source: "a", trimStartTime: Fixtures.time(6))).contains {
            $0.hasPrefix("video.videoSegments[0].trimStartTime: 6.0 s is at or beyond the media duration (5.0 s)") })
    }

    @Test(arguments: [0.0, -1.0, Double.nan, Double.infinity])
    func badSpeedsOnSegmentAndVideo(speed: Double) {
        #expect(problems(SessionVideoSegment(source: "a", speedMultiplier: speed)).contains {
            $0.hasPrefix("video.videoSegments[0].speedMultiplier: ") && $0.hasSuffix("must be a finite number greater than 0") })
        #expect(problems(SessionVideoSegment(source: "a"), speed: speed).contains {
            $0.hasPrefix("video.speedMultiplier: ") })
    }

    @Test func cropEmptyOrOutsideTheOrientedPicture() {
        #expect(problems(SessionVideoSegment(source: "a", cropRect: Rect(x: 0, y: 0, width: 0, height: 10))) ==
            ["video.videoSegments[0].cropRect: [[0,0],[0,10]] is empty (width and height must be greater than 0)"])
        #expect(problems(SessionVideoSegment(source: "a", cropRect: Rect(x: 1000, y: 0, width: 1000, height: 1080))) ==
            ["video.videoSegments[0].cropRect: [[1000,0],[1000,1080]] lies outside actualSize 1920×1080"])
        // The portrait source is 1080×1920 once oriented: a tall crop fits, a wide one does not.
        #expect(problems(SessionVideoSegment(source: "p", cropRect: Rect(x: 0, y: 0, width: 1080, height: 1920))).isEmpty)
        #expect(!problems(SessionVideoSegment(source: "p", cropRect: Rect(x: 0, y: 0, width: 1920, height: 1080))).isEmpty)
    }

    @Test func cropAspectMismatchWarns() {
        let report = SessionValidator().validate(
            Fixtures.session([SessionVideoSegment(source: "a", cropRect: Rect(x: 0, y: 0, width: 1000, height: 1000))],
                             renderSize: Size(width: 1280, height: 720)), media: media)
        #expect(report.isValid)
        #expect(report.warnings.map(\.path) == ["video.videoSegments[0].cropRect"])
    }

    @Test func transformMustBeAxisAligned() {
        let p = problems(SessionVideoSegment(source: "a", preferredTransform: SessionTransform(a: 0.5, b: 0.866, c: -0.866, d: 0.5, tx: 0, ty: 0)))
        #expect(p.count == 1)
        #expect(p.first?.hasPrefix("video.videoSegments[0].preferredTransform: [0.5, 0.866, -0.866, 0.5, 0, 0] is not one of the 8") == true)
    }

    @Test func zeroFramesIsAnError() {
        // 0.01 s at 30 fps is 0.3 of a frame.
        let p = problems(SessionVideoSegment(source: "a", trimDuration: Fixtures.time(0.01)))
        #expect(p.count == 1)
        #expect(p.first?.hasPrefix("video.videoSegments[0]: renders to 0 frames") == true)
    }

    @Test func filtersUnknownAndOutOfRange() {
        var segment = SessionVideoSegment(source: "a")
        segment.filters = [SessionFilter(type: "sepia"), SessionFilter(type: "brightness", normalizedIntensity: 1.5),
                           SessionFilter(type: "lut", normalizedIntensity: 50)]
        let p = problems(segment)
        #expect(p.contains("video.videoSegments[0].filters[0].type: unknown filter type 'sepia' (did you mean 'sepiaTone'?); known types: abbotKinney, brightness, bulge, cgaColorspace, contrast, edgeDetection, exposure, falseColor, gamma, gaussianBlur, halftone, highlights, horizontalPerspective, hue, laCienega, lookup, luminanceThreshold, lut, melrose, montana, mulholland, pinch, pixellate, polkaDot, sanVicente, saturation, sepiaTone, sepulveda, shadows, sharpness, sketch, speed, sphereRefraction, straighten, stretchDistortion, sunset, swirl, tiltShift, toon, verticalPerspective, vibrance, vignette, warmth, wilshire"))
        #expect(p.contains("video.videoSegments[0].filters[1].normalizedIntensity: 1.5 is outside -1 … 1 for 'brightness'"))
        #expect(p.contains("video.videoSegments[0].filters[2].file: is required for 'lut'"))
        var session = Fixtures.session([SessionVideoSegment(source: "a")])
        session.video?.primaryFilter = SessionFilter(type: "lut", normalizedIntensity: 120, file: "x.cube")
        #expect(problems(session) == ["video.primaryFilter.normalizedIntensity: 120 is outside 0 … 100 for 'lut'"])
    }

    @Test func mediaThatIsNotAvailable() {
        let report = SessionValidator().validate(Fixtures.session([SessionVideoSegment(source: "missing.mp4")]),
                                                 media: ["missing.mp4": .unavailable("'missing.mp4' not found (/x/missing.mp4)")])
        #expect(report.problems.map(\.description) == ["video.videoSegments[0].source: 'missing.mp4' not found (/x/missing.mp4)"])
    }

    @Test func imageAndVideoExactlyOne() {
        #expect(problems(Session()) == ["the session has neither 'video' nor 'image'; give exactly one"])
        var both = Fixtures.session([SessionVideoSegment(source: "a")])
        both.image = SessionImage(source: "a")
        #expect(problems(both) == ["the session has both 'video' and 'image'; give exactly one"])
        #expect(problems(Fixtures.session([])) == ["video.videoSegments: at least one segment is required"])
    }

    @Test func renderSizeMustBePositiveAndOddSizesWarn() {
        #expect(problems(Fixtures.session([SessionVideoSegment(source: "a")], renderSize: Size(width: 0, height: 720))) ==
            ["video.renderSize: 0×720 must be positive"])
        let report = SessionValidator().validate(
            Fixtures.session([SessionVideoSegment(source: "a")], renderSize: Size(width: 1279, height: 721)), media: media)
        #expect(report.isValid)
        #expect(report.warnings.map(\.description) == ["video.renderSize: 1279×721 is rounded down to even numbers: 1278×720"])
    }

    @Test func everyProblemIsReportedAtOnce() {
        var session = Fixtures.session([
            SessionVideoSegment(source: "a", trimStartTime: Fixtures.time(-1)),
            SessionVideoSegment(source: "a", speedMultiplier: 0),
            SessionVideoSegment(source: "a", filters: [SessionFilter(type: "glow")]),
        ])
        session.location = Location(latitude: 91, longitude: 0)
        let p = problems(session)
        #expect(p.count == 4)
        #expect(Set(p.map { $0.components(separatedBy: ":")[0] }) == [
            "video.videoSegments[0].trimStartTime", "video.videoSegments[1].speedMultiplier",
            "video.videoSegments[2].filters[0].type", "location.latitude"])
    }

    @Test func registeredFilterTypesValidate() {
        var registry = FilterRegistry.builtIn
        registry.register(FilterDefinition(type: "glow", category: .custom, slider: .percent(0, 1, default: 0),
                                           formula: "x") { _, _ in [] })
        let segment = SessionVideoSegment(source: "a", filters: [SessionFilter(type: "glow", normalizedIntensity: 50)])
        #expect(SessionValidator(filters: registry).validate(Fixtures.session([segment]), media: media).isValid)
    }
}
