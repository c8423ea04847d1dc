/// The intensity model of one filter type (DESIGN §5): the slider's normalized range maps
/// linearly onto the operation's actual range.
public struct FilterDefinition: Sendable, Hashable {
    public let type: String
    public let normalizedRange: ClosedRange<Double>
    public let actualRange: ClosedRange<Double>
    public let actualDefault: Double
    /// The type reads a file (a `.cube` LUT) named by the filter's `file`.
    public let requiresFile: Bool
    /// The per-pixel formula, for documentation and `reel inspect`.
    public let formula: String

    public init(type: String, normalizedRange: ClosedRange<Double>, actualRange: ClosedRange<Double>,
                actualDefault: Double, requiresFile: Bool = false, formula: String) {
        self.type = type
        self.normalizedRange = normalizedRange
        self.actualRange = actualRange
        self.actualDefault = actualDefault
        self.requiresFile = requiresFile
        self.formula = formula
    }

    private var slope: Double {
        (actualRange.upperBound - actualRange.lowerBound) / (normalizedRange.upperBound - normalizedRange.lowerBound)
    }

    public func actualIntensity(normalized n: Double) -> Double {
        actualRange.lowerBound + (n - normalizedRange.lowerBound) * slope
    }

    public func normalizedIntensity(actual a: Double) -> Double {
        normalizedRange.lowerBound + (a - actualRange.lowerBound) / slope
    }

    /// The inverse image of `actualDefault`.
    public var normalizedDefault: Double { normalizedIntensity(actual: actualDefault) }

    /// Built-in types of DESIGN §5, GPUImage's math on full-range RGB.
    public static let brightness = FilterDefinition(
        type: "brightness", normalizedRange: -1...1, actualRange: -0.3...0.3, actualDefault: 0,
        formula: "rgb + a")
    public static let contrast = FilterDefinition(
        type: "contrast", normalizedRange: -1...1, actualRange: 0.5...1.5, actualDefault: 1,
        formula: "(rgb - 0.5)·a + 0.5")
    public static let saturation = FilterDefinition(
        type: "saturation", normalizedRange: -1...1, actualRange: 0...2, actualDefault: 1,
        formula: "mix(lum, rgb, a), lum = dot(rgb, (0.2125, 0.7154, 0.0721))")
    public static let exposure = FilterDefinition(
        type: "exposure", normalizedRange: -1...1, actualRange: -1...1, actualDefault: 0,
        formula: "rgb · 2^a")
    public static let lut = FilterDefinition(
        type: "lut", normalizedRange: 0...100, actualRange: 0...1, actualDefault: 1, requiresFile: true,
        formula: "mix(rgb, lut3d(rgb), a), trilinear")
}

/// The open set of filter types. Decoding never consults it (a filter is data); validation
/// and the engine do, so later issues add types by registering them.
public struct FilterRegistry: Sendable {
    public private(set) var definitions: [String: FilterDefinition] = [:]

    public init(_ definitions: [FilterDefinition] = []) {
        for d in definitions { register(d) }
    }

    public mutating func register(_ definition: FilterDefinition) {
        definitions[definition.type] = definition
    }

    public subscript(type: String) -> FilterDefinition? { definitions[type] }

    public var knownTypes: [String] { definitions.keys.sorted() }

    public static let builtIn = FilterRegistry([.brightness, .contrast, .saturation, .exposure, .lut])
}
