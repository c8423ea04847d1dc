/// One filter of a session: `{"type": "brightness", "normalizedIntensity": 0.2}`,
/// `{"type": "lookup", "image": "looks/x.png"}` or `{"type": "lut", "file": "looks/x.cube"}`.
/// The SDK's class names (`SessionFilterWarmth`) are read as their type (`warmth`).
///
/// Keys the model does not know are kept in `parameters` and written back, so filter
/// types added later round-trip through this version unchanged.
public struct SessionFilter: Hashable, Sendable, Codable {
    public var type: String
    /// `nil` means the type's `normalizedDefault`.
    public var normalizedIntensity: Double?
    public var displayName: String?
    public var version: String?
    /// A `.cube` LUT the filter reads, relative to the session file.
    public var file: String?
    /// A lookup image the filter reads, relative to the session file.
    public var image: String?
    public var parameters: [String: JSONValue]

    public init(type: String, normalizedIntensity: Double? = nil, displayName: String? = nil,
                version: String? = nil, file: String? = nil, image: String? = nil, parameters: [String: JSONValue] = [:]) {
        self.type = type
        self.normalizedIntensity = normalizedIntensity
        self.displayName = displayName
        self.version = version
        self.file = file
        self.image = image
        self.parameters = parameters
    }

    /// The normalized intensity in effect, given the type's definition.
    public func normalizedIntensity(in definition: FilterDefinition) -> Double {
        normalizedIntensity ?? definition.normalizedDefault
    }

    public func actualIntensity(in definition: FilterDefinition) -> Double {
        definition.actualIntensity(normalized: normalizedIntensity(in: definition))
    }

    /// The SDK's `isActive`: the slider is away from its default. An adjust filter at its
    /// default is the identity; a look at its default (100) is applied in full.
    public func isActive(in definition: FilterDefinition) -> Bool {
        normalizedIntensity(in: definition) != definition.normalizedDefault
    }

    /// The stages this filter renders as; empty when it is the identity at its intensity.
    public func stages(in definition: FilterDefinition) -> [FilterStage] {
        definition.stages(actualIntensity(in: definition), self)
    }

    private static let knownKeys: Set<String> = ["type", "normalizedIntensity", "displayName", "version", "file", "image"]

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        type = FilterRegistry.builtIn.canonicalType(try c.decode(String.self, forKey: AnyCodingKey("type")))
        normalizedIntensity = try c.decodeIfPresent(Double.self, forKey: AnyCodingKey("normalizedIntensity"))
        displayName = try c.decodeIfPresent(String.self, forKey: AnyCodingKey("displayName"))
        let versionKey = AnyCodingKey("version")
        if let number = try? c.decodeIfPresent(Int64.self, forKey: versionKey) {
            version = String(number)
        } else {
            version = try c.decodeIfPresent(String.self, forKey: versionKey)
        }
        file = try c.decodeIfPresent(String.self, forKey: AnyCodingKey("file"))
        image = try c.decodeIfPresent(String.self, forKey: AnyCodingKey("image"))
        var extra: [String: JSONValue] = [:]
        for key in c.allKeys where !Self.knownKeys.contains(key.stringValue) {
            extra[key.stringValue] = try c.decode(JSONValue.self, forKey: key)
        }
        parameters = extra
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.encode(type, forKey: AnyCodingKey("type"))
        try c.encodeIfPresent(normalizedIntensity, forKey: AnyCodingKey("normalizedIntensity"))
        try c.encodeIfPresent(displayName, forKey: AnyCodingKey("displayName"))
        try c.encodeIfPresent(version, forKey: AnyCodingKey("version"))
        try c.encodeIfPresent(file, forKey: AnyCodingKey("file"))
        try c.encodeIfPresent(image, forKey: AnyCodingKey("image"))
        for (k, v) in parameters { try c.encode(v, forKey: AnyCodingKey(k)) }
    }
}
