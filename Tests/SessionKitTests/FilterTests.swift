import Foundation
import Testing
@testable import SessionKit

@Suite struct FilterTests {
    /// (type, slider low, identity-or-default, high) → actual low, default, high, written
    /// by hand from docs/filters.md.
    static let ranges: [(String, [Double], [Double])] = [
        ("brightness", [-1, 0, 1], [-0.18, 0, 0.18]),
        ("contrast", [-1, 0, 1], [0.3, 1, 1.8]),
        ("saturation", [-1, 0, 1], [0, 1, 2.3]),
        ("exposure", [-1, 0, 1], [-1, 0, 1]),
        ("vibrance", [-1, 0, 1], [-1, 0, 1]),
        ("hue", [-1, 0, 1], [-Double.pi, 0, Double.pi]),
        ("warmth", [-1, 0, 1], [3000, 5000, 11000]),
        ("sharpness", [-1, 0, 1], [-1, 0, 2]),
        ("gamma", [-1, 0, 1], [0.5, 1, 2]),
        ("highlights", [0, 100, 100], [0, 1, 1]),
        ("shadows", [0, 0, 100], [0, 0, 1]),
        ("vignette", [0, 0, 100], [0, 0, 1]),
        ("lookup", [0, 100, 100], [0, 1, 1]),
        ("lut", [0, 100, 100], [0, 1, 1]),
        ("wilshire", [0, 100, 100], [0, 0.6, 0.6]),
        ("melrose", [0, 100, 100], [0, 0.9, 0.9]),
        ("abbotKinney", [0, 100, 100], [0, 0.9, 0.9]),
        ("sunset", [0, 100, 100], [0, 1, 1]),
        ("straighten", [-20, 0, 20], [-20, 0, 20]),
        ("horizontalPerspective", [-20, 0, 20], [-20, 0, 20]),
        ("verticalPerspective", [-20, 0, 20], [-20, 0, 20]),
        // The visual effects: slider 0 … 100, default 100 (the actual default at the range's end).
        ("pixellate", [0, 100, 100], [0, 0.03, 0.03]),
        ("falseColor", [0, 100, 100], [0, 1, 1]),
        ("luminanceThreshold", [0, 100, 100], [0.2, 0.5, 0.5]),
        ("sketch", [0, 100, 100], [0.2, 1, 1]),
        ("polkaDot", [0, 100, 100], [0, 0.05, 0.05]),
        ("halftone", [0, 100, 100], [0.004, 0.01, 0.01]),
        ("sepiaTone", [0, 100, 100], [0, 1, 1]),
        ("toon", [0, 100, 100], [1, 0.1, 0.1]),
        ("tiltShift", [0, 100, 100], [0.4, 0, 0]),
        ("swirl", [0, 100, 100], [0, 1, 1]),
        ("bulge", [0, 100, 100], [0, 0.3, 0.3]),
        ("cgaColorspace", [0, 100, 100], [0, 1, 1]),
        ("pinch", [0, 100, 100], [-2, 0.5, 0.5]),
        ("edgeDetection", [0, 100, 100], [0, 1.5, 1.5]),
        ("sphereRefraction", [0, 100, 100], [0, 0.25, 0.25]),
        ("gaussianBlur", [0, 100, 100], [0, 15, 15]),
        ("stretchDistortion", [0, 100, 100], [0, 0.5, 0.5]),
    ]

    static let effects = ["pixellate", "falseColor", "luminanceThreshold", "sketch", "polkaDot", "halftone", "sepiaTone",
                          "toon", "tiltShift", "swirl", "bulge", "cgaColorspace", "pinch", "edgeDetection",
                          "sphereRefraction", "gaussianBlur", "stretchDistortion"]

    @Test(arguments: ranges.indices)
    func sliderMapsOntoTheActualRangeAtBothEndsAndTheDefault(index: Int) throws {
        let (type, slider, actual) = Self.ranges[index]
        let definition = try #require(FilterRegistry.builtIn[type])
        #expect(definition.normalizedRange == slider[0]...slider[2])
        #expect(abs(definition.normalizedDefault - slider[1]) < 1e-9, "\(type) default")
        for (n, a) in zip(slider, actual) {
            #expect(abs(definition.actualIntensity(normalized: n) - a) < 1e-9, "\(type) at \(n)")
        }
        #expect(!SessionFilter(type: type).isActive(in: definition))
        #expect(SessionFilter(type: type, normalizedIntensity: slider[1] == slider[2] ? slider[0] : slider[2]).isActive(in: definition))
    }

    /// Adjust filters are piecewise-linear: halfway on each side is halfway to each end.
    @Test func adjustSlidersArePiecewiseLinearAroundTheIdentity() throws {
        let warmth = try #require(FilterRegistry.builtIn["warmth"])
        #expect(warmth.actualIntensity(normalized: -0.5) == 4000)
        #expect(warmth.actualIntensity(normalized: 0.5) == 8000)
        #expect(abs(warmth.normalizedIntensity(actual: 8000) - 0.5) < 1e-12)
        let gamma = try #require(FilterRegistry.builtIn["gamma"])
        #expect(gamma.actualIntensity(normalized: -0.5) == 0.75)
        #expect(gamma.actualIntensity(normalized: 0.5) == 1.5)
    }

    /// 27 adjust, primary and position types and the 17 visual effects: 44, every one rendered.
    @Test func theCatalogueHasEveryOneOfTheSDKsTypes() {
        let expected = Set([
            "brightness", "contrast", "saturation", "exposure", "vibrance", "hue", "warmth", "sharpness", "gamma",
            "highlights", "shadows", "vignette", "speed", "lookup", "lut", "wilshire", "montana", "sanVicente", "melrose",
            "sepulveda", "laCienega", "abbotKinney", "mulholland", "sunset", "straighten", "horizontalPerspective",
            "verticalPerspective",
        ]).union(Self.effects)
        #expect(Set(FilterRegistry.builtIn.knownTypes) == expected)
        #expect(FilterRegistry.builtIn.knownTypes.count == 44)
        #expect(FilterRegistry.effects.map(\.type) == Self.effects)
        #expect(FilterRegistry.effects.allSatisfy { $0.category == .effect })
    }

    @Test(arguments: [("SessionFilterWarmth", "warmth"), ("SessionFilterSanVicente", "sanVicente"),
                      ("SessionFilterHorizontalPerspective", "horizontalPerspective"), ("saturation", "saturation"),
                      ("SessionFilterSwirl", "swirl"), ("SessionFilterGaussianBlur", "gaussianBlur"),
                      ("SessionFilterPixellate", "pixellate"), ("SessionFilterCgaColorspace", "cgaColorspace"),
                      ("SessionFilterSphereRefraction", "sphereRefraction"), ("SessionFilterStretchDistortion", "stretchDistortion")])
    func sdkClassNamesDecodeAndEncodeCanonically(alias: String, type: String) throws {
        let filter = try JSONDecoder().decode(SessionFilter.self, from: Data(#"{"type": "\#(alias)", "normalizedIntensity": 0.5}"#.utf8))
        #expect(filter.type == type)
        let encoded = String(decoding: try JSONEncoder().encode(filter), as: UTF8.self)
        #expect(encoded.contains(#""type":"\#(type)""#))
    }

    @Test func speedIsAcceptedAndRendersNothing() throws {
        let speed = try #require(FilterRegistry.builtIn["speed"])
        #expect(speed.slider == nil)
        #expect(SessionFilter(type: "speed", normalizedIntensity: 3).stages(in: speed).isEmpty)
    }

    @Test func filtersAtTheirIdentityHaveNoStages() throws {
        for type in ["brightness", "contrast", "saturation", "hue", "warmth", "sharpness", "gamma", "highlights",
                     "shadows", "vignette", "straighten"] {
            let definition = try #require(FilterRegistry.builtIn[type])
            #expect(SessionFilter(type: type).stages(in: definition).isEmpty, "\(type)")
        }
        // A look at its default (100) is applied in full.
        let wilshire = try #require(FilterRegistry.builtIn["wilshire"])
        #expect(SessionFilter(type: "wilshire").stages(in: wilshire).count == 1)
        // An effect at its default (100) is applied in full; at 0 those blended by the
        // intensity (or whose parameter 0 is the identity) are skipped.
        for type in Self.effects {
            let definition = try #require(FilterRegistry.builtIn[type])
            #expect(SessionFilter(type: type).stages(in: definition).count == 1, "\(type)")
        }
        for type in ["falseColor", "sepiaTone", "swirl", "bulge", "cgaColorspace", "gaussianBlur"] {
            let definition = try #require(FilterRegistry.builtIn[type])
            #expect(SessionFilter(type: type, normalizedIntensity: 0).stages(in: definition).isEmpty, "\(type)")
        }
    }

    @Test func customFilterChainsMapOneSliderOntoEachStagesRange() throws {
        let json = #"""
        {"type": "dreamy", "slider": {"range": [0, 100], "default": 100},
         "stages": [{"operation": "lookup", "image": "x.png", "range": [0, 0.8]},
                    {"operation": "brightness", "range": [0, 0.025]},
                    {"operation": "sharpness", "range": [0, 0.25]}]}
        """#
        let file = try CustomFilterFile.parse(Data(json.utf8), name: "dreamy.json")
        #expect(file.assets == [FilterAsset(kind: .lookupImage, reference: "look:x.png")])
        let stages = SessionFilter(type: "dreamy", normalizedIntensity: 50).stages(in: file.definition)
        #expect(stages.count == 3)
        guard case .asset(let asset, let amount) = stages[0], case .channel(let brightness as Brightness.Operation) = stages[1],
              case .picture(let sharpen as Sharpness.Operation) = stages[2] else {
            Issue.record("stages \(stages)")
            return
        }
        #expect(asset.reference == "look:x.png" && abs(amount - 0.4) < 1e-6)
        #expect(abs(brightness.amount - 0.0125) < 1e-7)
        #expect(abs(sharpen.amount - 0.125) < 1e-7)
    }

    @Test(arguments: [
        (#"{"type": "brightness", "slider": {"range": [0, 1], "default": 0}, "stages": [{"operation": "gamma", "range": [1, 2]}]}"#, "built-in"),
        (#"{"type": "x", "slider": {"range": [0, 1], "default": 2}, "stages": [{"operation": "gamma", "range": [1, 2]}]}"#, "slider.default 2.0 is outside"),
        (#"{"type": "x", "slider": {"range": [0, 1], "default": 0}, "stages": [{"operation": "glow", "range": [1, 2]}]}"#, "stages[0].operation 'glow'"),
        (#"{"type": "x", "slider": {"range": [0, 1], "default": 0}, "stages": [{"operation": "lookup", "range": [0, 1]}]}"#, "needs 'image'"),
        (#"{"type": "x", "slider": {"range": [0, 1], "default": 0}}"#, "stages"),
    ])
    func badCustomFiltersNameWhatIsWrong(json: String, expected: String) {
        #expect(throws: CustomFilterError.self) { try CustomFilterFile.parse(Data(json.utf8), name: "x.json") }
        do {
            _ = try CustomFilterFile.parse(Data(json.utf8), name: "x.json")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    /// The portable functions against the C library, over the ranges the filters use.
    @Test func portableMathAgreesWithLibm() {
        var worst = 0.0
        for i in 1...2000 {
            let x = Double(i) / 2000
            for y in [0.3333, 0.5, 0.6667, 1.0, 1.5, 2.0] {
                worst = max(worst, abs(PortableMath.pow(x, y) - Foundation.pow(x, y)) / Foundation.pow(x, y))
            }
            let angle = (x - 0.5) * 4 * Double.pi
            let (s, c) = PortableMath.sinCos(angle)
            worst = max(worst, abs(s - sin(angle)), abs(c - cos(angle)))
            worst = max(worst, abs(PortableMath.exp2(x * 2 - 1) - Foundation.exp2(x * 2 - 1)))
        }
        #expect(worst < 1e-13, "worst error \(worst)")
        var worstFloat = 0.0
        for i in 1...4096 {
            let x = Float(i) / 4096
            for y: Float in [0.5, 0.6, 0.75, 1.3, 2] {
                let exact = Foundation.pow(Double(x), Double(y))
                worstFloat = max(worstFloat, abs(Double(PortableMath.pow(x, y)) - exact) / exact)
            }
        }
        #expect(worstFloat < 1e-6, "single precision: worst relative error \(worstFloat)")
        #expect(PortableMath.pow(Float(0), 0.7) == 0 && PortableMath.pow(Float(1), 0.7) == 1)
        #expect(PortableMath.pow(0, 0.5) == 0 && PortableMath.pow(0.25, 0.5) == 0.5)
    }
}
