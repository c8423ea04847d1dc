import Testing
@testable import SessionKit

@Suite struct FilterTests {
    // (type, normalized, expected actual) computed by hand from DESIGN §5's ranges.
    @Test(arguments: [
        ("brightness", -1.0, -0.3), ("brightness", 0.5, 0.15), ("brightness", 1.0, 0.3),
        ("contrast", -1.0, 0.5), ("contrast", 0.0, 1.0), ("contrast", 0.5, 1.25),
        ("saturation", -1.0, 0.0), ("saturation", 0.25, 1.25), ("saturation", 1.0, 2.0),
        ("exposure", -0.5, -0.5), ("exposure", 1.0, 1.0),
        ("lut", 0.0, 0.0), ("lut", 80.0, 0.8), ("lut", 100.0, 1.0),
    ])
    func normalizedMapsToActualAndBack(type: String, normalized: Double, actual: Double) throws {
        let definition = try #require(FilterRegistry.builtIn[type])
        #expect(abs(definition.actualIntensity(normalized: normalized) - actual) < 1e-12)
        #expect(abs(definition.normalizedIntensity(actual: actual) - normalized) < 1e-12)
    }

    @Test(arguments: [("brightness", 0.0), ("contrast", 0.0), ("saturation", 0.0), ("exposure", 0.0), ("lut", 100.0)])
    func defaultsAreTheInverseImageOfTheActualDefault(type: String, normalizedDefault: Double) throws {
        let definition = try #require(FilterRegistry.builtIn[type])
        #expect(abs(definition.normalizedDefault - normalizedDefault) < 1e-12)
        let atDefault = SessionFilter(type: type)
        #expect(!atDefault.isActive(in: definition))
        #expect(abs(atDefault.actualIntensity(in: definition) - definition.actualDefault) < 1e-12)
        #expect(SessionFilter(type: type, normalizedIntensity: normalizedDefault == 0 ? 0.1 : 50).isActive(in: definition))
    }

    @Test func registryIsOpen() {
        var registry = FilterRegistry.builtIn
        #expect(registry["vignette"] == nil)
        registry.register(FilterDefinition(type: "vignette", normalizedRange: 0...1, actualRange: 0...0.75,
                                           actualDefault: 0, formula: "rgb · (1 - a·r²)"))
        #expect(registry["vignette"]?.actualIntensity(normalized: 1) == 0.75)
        #expect(registry.knownTypes == ["brightness", "contrast", "exposure", "lut", "saturation", "vignette"])
    }
}
