import Testing
@testable import SessionKit

@Suite struct GeometryTests {
    @Test func suggestedCropLandscapeToSquare() {
        let crop = suggestedCropRect(actualSize: Size(width: 1920, height: 1080), renderSize: Size(width: 1080, height: 1080))
        #expect(crop == Rect(x: 420, y: 0, width: 1080, height: 1080))
    }

    @Test func suggestedCropPortraitToWidescreen() {
        // 1080 wide at 16:9 is 607.5 high, centred in 1920.
        let crop = suggestedCropRect(actualSize: Size(width: 1080, height: 1920), renderSize: Size(width: 1920, height: 1080))
        #expect(crop == Rect(x: 0, y: 656.25, width: 1080, height: 607.5))
    }

    @Test func suggestedCropOfTheSameAspectIsTheWholePicture() {
        let crop = suggestedCropRect(actualSize: Size(width: 640, height: 360), renderSize: Size(width: 1280, height: 720))
        #expect(crop == Rect(x: 0, y: 0, width: 640, height: 360))
    }

    @Test func eightOrientationsAreRecognisedAndOthersRefused() {
        var seen = Set<Orientation>()
        for a in [-1.0, 0, 1] { for b in [-1.0, 0, 1] { for c in [-1.0, 0, 1] { for d in [-1.0, 0, 1] {
            if let o = Orientation(SessionTransform(a: a, b: b, c: c, d: d, tx: 5, ty: 7)) { seen.insert(o) }
        } } } }
        #expect(seen.count == 8)
        #expect(Orientation(SessionTransform(a: 0.7071, b: 0.7071, c: -0.7071, d: 0.7071, tx: 0, ty: 0)) == nil)
        #expect(Orientation(SessionTransform(a: 2, b: 0, c: 0, d: 2, tx: 0, ty: 0)) == nil)
        #expect(Orientation(SessionTransform(a: .nan, b: 0, c: 0, d: 1, tx: 0, ty: 0)) == nil)
    }

    @Test func actualSizeSwapsAtQuarterTurns() {
        let natural = Size(width: 1920, height: 1080)
        #expect(Orientation.right.actualSize(of: natural) == Size(width: 1080, height: 1920))
        #expect(Orientation.left.actualSize(of: natural) == Size(width: 1080, height: 1920))
        #expect(Orientation.down.actualSize(of: natural) == natural)
        #expect(Orientation.upMirrored.actualSize(of: natural) == natural)
    }

    @Test func canonicalTranslationMovesThePictureIntoThePositiveQuadrant() {
        // A phone's portrait clip: (0, 1, -1, 0, h, 0).
        #expect(Orientation.right.transform(naturalSize: Size(width: 1920, height: 1080))
                == SessionTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0))
        #expect(Orientation.down.transform(naturalSize: Size(width: 1920, height: 1080))
                == SessionTransform(a: -1, b: 0, c: 0, d: -1, tx: 1920, ty: 1080))
    }

    @Test func renderSizeRoundsDownToEven() {
        let even = evenRenderSize(Size(width: 1081, height: 721.7))
        #expect(even.width == 1080 && even.height == 720)
        #expect(evenRenderSize(Size(width: 1, height: 100)).width == 0)
    }
}
