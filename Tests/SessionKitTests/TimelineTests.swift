import Testing
@testable import SessionKit

@Suite struct TimelineTests {
    private func timeline(_ segments: [SessionVideoSegment], media: [String: MediaInfo], speed: Double? = nil,
                          frameDuration: SessionTime? = nil, renderSize: Size? = nil) throws -> Timeline {
        try Timeline(session: Fixtures.session(segments, renderSize: renderSize, speed: speed, frameDuration: frameDuration),
                     media: media)
    }

    // (speed, trim seconds, frames, source time of the last frame as n/d): n = floor(trim/speed·30 + 1/2).
    @Test(arguments: [
        (0.25, 2.0, Int64(240), Int64(239), Int64(120)),   // k/120
        (1.0 / 3.0, 1.0, 90, 89, 90),                      // k/90
        (2.5, 1.0, 12, 11, 12),                            // k/12
        (4.0, 1.0, 8, 14, 15),                             // 7.5 frames round up to 8; t = 2k/15
    ])
    func speedsGiveExactFrameCountsAndSourceTimes(speed: Double, trim: Double, frames: Int64, lastN: Int64, lastD: Int64) throws {
        let t = try timeline([SessionVideoSegment(source: "a", trimStartTime: Fixtures.time(1),
                                                  trimDuration: Fixtures.time(trim), speedMultiplier: speed)],
                             media: ["a": Fixtures.media()])
        let s = t.segments[0]
        #expect(s.frameCount == frames)
        #expect(s.sourceTime(ofFrame: 0) == Rational(1))
        #expect(s.sourceTime(ofFrame: frames - 1) == Rational(1) + Rational(lastN, lastD)!)
        #expect(t.totalFrames == frames)
    }

    @Test func sixtyToThirtyTakesEveryOtherSourceFrame() throws {
        let t = try timeline([SessionVideoSegment(source: "a", trimDuration: Fixtures.time(2))],
                             media: ["a": Fixtures.media(fps: 60)], frameDuration: SessionTime(value: 1, timescale: 30))
        #expect(t.frameRate == Rational(30))
        #expect(t.segments[0].frameCount == 60)
        #expect(t.segments[0].sourceTime(ofFrame: 7) == Rational(7, 30))  // source frame 14 of 60 fps
    }

    @Test func twentyFourToThirtyRepeatsSourceFrames() throws {
        let t = try timeline([SessionVideoSegment(source: "a", trimDuration: Fixtures.time(1))],
                             media: ["a": Fixtures.media(fps: 24)], frameDuration: SessionTime(value: 1, timescale: 30))
        #expect(t.segments[0].frameCount == 30)
        #expect(t.segments[0].sourceTime(ofFrame: 5) == Rational(1, 6))
    }

    @Test func thirtyToTwentyFourUsesTheFirstSegmentsFrameDuration() throws {
        let t = try timeline([SessionVideoSegment(source: "a", trimDuration: Fixtures.time(1),
                                                  frameDuration: SessionTime(value: 1, timescale: 24))],
                             media: ["a": Fixtures.media(fps: 30)])
        #expect(t.frameRate == Rational(24))
        #expect(t.segments[0].frameCount == 24)
        #expect(t.segments[0].sourceTime(ofFrame: 23) == Rational(23, 24))
    }

    @Test func frameRateDefaultsToTheFirstSourceAndThenThirty() throws {
        let ntsc = MediaInfo(duration: Rational(10), frameDuration: Rational(1001, 30000), codedWidth: 640, codedHeight: 360)
        #expect(try timeline([SessionVideoSegment(source: "a")], media: ["a": ntsc]).frameDuration == Rational(1001, 30000))
        let unknown = MediaInfo(duration: Rational(10), frameDuration: nil, codedWidth: 640, codedHeight: 360)
        #expect(try timeline([SessionVideoSegment(source: "a")], media: ["a": unknown]).frameDuration == Rational(1, 30))
    }

    @Test func videoAndSegmentSpeedsMultiply() throws {
        let t = try timeline([SessionVideoSegment(source: "a", trimDuration: Fixtures.time(3), speedMultiplier: 1.5)],
                             media: ["a": Fixtures.media()], speed: 2)
        #expect(t.segments[0].speed == Rational(3))
        #expect(t.segments[0].frameCount == 30)
        #expect(t.segments[0].sourceTime(ofFrame: 1) == Rational(1, 10))
    }

    @Test func segmentsFollowEachOtherAndDefaultsFillIn() throws {
        let t = try timeline([
            SessionVideoSegment(source: "a", trimStartTime: Fixtures.time(2), trimDuration: Fixtures.time(1.5)),
            SessionVideoSegment(source: "b", trimStartTime: Fixtures.time(0.5)),   // to the end: 3.5 s
            SessionVideoSegment(source: "a", trimDuration: Fixtures.time(0.05)),   // 1.5 frames → 2
        ], media: ["a": Fixtures.media(), "b": Fixtures.media(seconds: 4)])
        #expect(t.segments.map(\.frameCount) == [45, 105, 2])
        #expect(t.segments.map(\.outputStartFrame) == [0, 45, 150])
        #expect(t.totalFrames == 152)
        #expect(t.duration == Rational(152, 30))
        #expect(t.segments[1].sourceTime(ofFrame: 0) == Rational(1, 2))
    }

    @Test func geometryDefaultsFollowTheDisplayMatrix() throws {
        let portrait = Fixtures.media(transform: SessionTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0))
        let t = try timeline([SessionVideoSegment(source: "p"), SessionVideoSegment(source: "l")],
                             media: ["p": portrait, "l": Fixtures.media()])
        #expect(t.renderWidth == 1080 && t.renderHeight == 1920)
        #expect(t.segments[0].orientation == .right)
        #expect(t.segments[0].cropRect == Rect(x: 0, y: 0, width: 1080, height: 1920))
        // Landscape into a portrait render: full height, centred width 1080·1080/1920.
        #expect(t.segments[1].actualSize == Size(width: 1920, height: 1080))
        #expect(t.segments[1].cropRect == Rect(x: 656.25, y: 0, width: 607.5, height: 1080))
    }

    @Test func explicitTransformOverridesTheSourcesAndFiltersChainInOrder() throws {
        var segment = SessionVideoSegment(source: "a", preferredTransform: SessionTransform(a: -1, b: 0, c: 0, d: -1, tx: 0, ty: 0))
        segment.filters = [SessionFilter(type: "brightness", normalizedIntensity: 0.1)]
        var session = Fixtures.session([segment], renderSize: Size(width: 641, height: 359))
        session.video?.filters = [SessionFilter(type: "contrast", normalizedIntensity: 0.2)]
        session.video?.primaryFilter = SessionFilter(type: "lut", normalizedIntensity: 50, file: "x.cube")
        let t = try Timeline(session: session, media: ["a": Fixtures.media(transform: SessionTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0))])
        #expect(t.segments[0].orientation == .down)
        #expect(t.renderWidth == 640 && t.renderHeight == 358)
        #expect(t.segments[0].filters.map(\.type) == ["brightness", "contrast", "lut"])
    }
}
