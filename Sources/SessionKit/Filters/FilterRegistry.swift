/// The filter types a session may use: the built-in catalogue (docs/filters.md) plus the
/// custom chains of a looks directory. Validation, the engine, `reel inspect`,
/// `reel filters`, the JSON Schema test and docs/filters.md all read this one list.
public struct FilterRegistry: Sendable {
    public private(set) var definitions: [String: FilterDefinition] = [:]
    /// SDK class name → type.
    public private(set) var aliases: [String: String] = [:]

    public init(_ definitions: [FilterDefinition] = []) {
        for d in definitions { register(d) }
    }

    public mutating func register(_ definition: FilterDefinition) {
        definitions[definition.type] = definition
        if let alias = definition.className { aliases[alias] = definition.type }
    }

    /// This registry with `more` added (custom filters never replace a built-in type).
    public func adding(_ more: [FilterDefinition]) -> FilterRegistry {
        var copy = self
        for d in more where definitions[d.type] == nil { copy.register(d) }
        return copy
    }

    public subscript(type: String) -> FilterDefinition? { definitions[canonicalType(type)] }

    /// The lower-camel type for a type or an SDK class name.
    public func canonicalType(_ name: String) -> String { aliases[name] ?? name }

    public var knownTypes: [String] { definitions.keys.sorted() }

    /// The catalogue in the order of docs/filters.md.
    public static let catalogue: [FilterDefinition] = [
        Brightness.definition, Contrast.definition, Saturation.definition, Exposure.definition,
        Vibrance.definition, Hue.definition, Warmth.definition, Sharpness.definition, Gamma.definition,
        Highlights.definition, Shadows.definition, Vignette.definition, Speed.definition,
        Lookup.definition, CubeLUTFilter.definition,
    ] + NamedLooks.definitions + [
        Straighten.definition, Perspective.horizontal, Perspective.vertical,
    ] + effects

    /// The SDK's 17 visual effects, in the order of docs/filters.md.
    public static let effects: [FilterDefinition] = [
        Pixellate.definition, FalseColor.definition, LuminanceThreshold.definition, Sketch.definition,
        PolkaDot.definition, Halftone.definition, SepiaTone.definition, Toon.definition, TiltShift.definition,
        Swirl.definition, Bulge.definition, CGAColorspace.definition, Pinch.definition, EdgeDetection.definition,
        SphereRefraction.definition, GaussianBlur.definition, StretchDistortion.definition,
    ]

    public static let builtIn = FilterRegistry(catalogue)
}
