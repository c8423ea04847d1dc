import Foundation
import Testing
@testable import SessionKit

/// Templates (docs/session-format.md, "Templates"): the rules worked out by hand.
@Suite struct TemplateTests {
    private func near(_ a: Rect, _ b: Rect) -> Bool {
        [a.minX - b.minX, a.minY - b.minY, a.width - b.width, a.height - b.height].allSatisfy { abs($0) < 1e-6 }
    }

    @Test func aCropIsCarriedInProportionAndKeepsItsAspectWhereAspectsDiffer() {
        let middle = Rect(x: 480, y: 270, width: 960, height: 540)
        let hd = Size(width: 1920, height: 1080)
        // One aspect: in proportion, 2/3 of everything.
        #expect(near(Template.carry(middle, from: hd, to: Size(width: 1280, height: 720)), Rect(x: 320, y: 180, width: 640, height: 360)))
        // 4:3: ratios 1/3 and 4/9; centre (960·1/3, 540·4/9) = (320, 240); size × 4/9 = 426.67 × 240, inside.
        #expect(near(Template.carry(middle, from: hd, to: Size(width: 640, height: 480)),
                     Rect(x: 320 - 640.0 / 3, y: 120, width: 1280.0 / 3, height: 240)))
        // Portrait: ratios 0.5625 and 1.7778; centre (540, 960); size × 1.7778 = 1706.67 × 960 is
        // too wide by 1080/1706.67: shrunk about the centre to 1080 × 607.5.
        #expect(near(Template.carry(middle, from: hd, to: Size(width: 1080, height: 1920)),
                     Rect(x: 0, y: 960 - 303.75, width: 1080, height: 607.5)))
        // A crop at the right edge stays at the right edge.
        let edge = Template.carry(Rect(x: 1440, y: 0, width: 480, height: 1080), from: hd, to: Size(width: 1280, height: 720))
        #expect(near(edge, Rect(x: 960, y: 0, width: 320, height: 720)))
    }

    private func session(_ json: String) throws -> Session {
        try SessionDocument.decode(Data(json.utf8))
    }

    private func clip(_ width: Int, _ height: Int, seconds: Int64, rotated: Bool = false) -> MediaInfo {
        MediaInfo(duration: Rational(Int(seconds)), frameDuration: Rational(1, 30), codedWidth: width, codedHeight: height,
                  displayTransform: rotated ? SessionTransform(a: 0, b: 1, c: -1, d: 0, tx: Double(height), ty: 0) : nil)
    }

    @Test func segmentsNamingTheOldSourceReadTheNewOneWithTheirGeometryCarried() throws {
        let template = try session("""
        {"video": {"renderSize": [1280, 720], "videoSegments": [
          {"source": "intro.mp4"},
          {"source": "a.mp4", "trimStartTime": 2, "trimDuration": 6, "cropRect": [[480, 270], [960, 540]]},
          {"source": "b.mp4", "preferredTransform": [0, 1, -1, 0, 1080, 0], "trimStartTime": 1}
        ]}}
        """)
        let old = ["a.mp4": clip(1920, 1080, seconds: 10), "b.mp4": clip(1920, 1080, seconds: 10, rotated: true)]
        let new = ["c.mp4": clip(1280, 720, seconds: 5, rotated: true), "d.mp4": clip(640, 480, seconds: 4)]
        let applied = try Template.apply(template, replacements: ["a.mp4": "c.mp4", "b.mp4": "d.mp4"], old: old.mapValues(\.geometry), new: new)
        let segments = try #require(applied.video?.videoSegments)
        #expect(segments.map(\.source) == ["intro.mp4", "c.mp4", "d.mp4"])
        // a → c: 1920×1080 upright to 1280×720 turned 90° (720×1280 on screen); trim cut at 5 s.
        #expect(segments[1].trimStartTime?.rational == Rational(2) && segments[1].trimDuration?.rational == Rational(3))
        let crop = try #require(segments[1].cropRect)
        // Ratios 0.375 and 1.1852; centre (360, 640); size × 1.1852 = 1137.8 × 640, shrunk by
        // 720/1137.8 to 720 × 405.
        #expect(near(crop, Rect(x: 0, y: 640 - 202.5, width: 720, height: 405)), "\(crop)")
        // b's transform was b's own display matrix: d's (none) applies now.
        #expect(segments[2].preferredTransform == nil && segments[2].source == "d.mp4")
        #expect(applied.video?.renderSize == template.video?.renderSize)
    }

    @Test func replacementsThatCannotBeMadeNameThePathAndTheNumbers() throws {
        let template = try session(#"{"video": {"videoSegments": [{"source": "a.mp4", "trimStartTime": 6}]}}"#)
        let old = ["a.mp4": clip(1920, 1080, seconds: 10)]
        #expect(throws: Template.Problem(path: "video.videoSegments[0].trimStartTime",
                                         message: "starts at 6.0 s, past the end of 'b.mp4' (4.0 s long; 'a.mp4' is 10.0 s)")) {
            try Template.apply(template, replacements: ["a.mp4": "b.mp4"], old: old.mapValues(\.geometry), new: ["b.mp4": clip(640, 480, seconds: 4)])
        }
        #expect(throws: Template.Problem(path: "--replace", message: "'z.mp4' is not a source of the session (its sources: 'a.mp4')")) {
            try Template.apply(template, replacements: ["z.mp4": "b.mp4"], old: old.mapValues(\.geometry), new: ["b.mp4": clip(640, 480, seconds: 8)])
        }
        let cropped = try session(#"{"video": {"videoSegments": [{"source": "a.mp4", "cropRect": [[0, 0], [100, 100]]}]}}"#)
        #expect(throws: Template.Problem.self) {
            try Template.apply(cropped, replacements: ["a.mp4": "b.mp4"], old: [:], new: ["b.mp4": clip(640, 480, seconds: 8)])
        }
    }
}
