/// One filter of a session: `{"type": "brightness", "normalizedIntensity": 0.2}`, or
/// `{"type": "lut", "file": "looks/x.cube", "normalizedIntensity": 80}`.
///
/// Keys the model does not know are kept in `parameters` and written back, so filter
/// types added later round-trip through this version unchanged.
public struct SessionFilter: Hashable, Sendable, Codable {
    public var type: String
    /// `nil` means the type's `normalizedDefault`.
    public var normalizedIntensity: Double?
    public var displayName: String?
    public var version: String?
    /// A file the filter reads (a `.cube` LUT), relative to the session file.
    public var file: String?
    public var parameters: [String: JSONValue]

    public init(type: String, normalizedIntensity: Double? = nil, displayName: String? = nil,
                version: String? = nil, file: String? = nil, parameters: [String: JSONValue] = [:]) {
        self.type = type
        self.normalizedIntensity = normalizedIntensity
        self.displayName = displayName
        self.version = version
        self.file = file
        self.parameters = parameters
    }

    /// The normalized intensity in effect, given the type's definition.
    public func normalizedIntensity(in definition: FilterDefinition) -> Double {
        normalizedIntensity ?? definition.normalizedDefault
    }

    public func actualIntensity(in definition: FilterDefinition) -> Double {
        definition.actualIntensity(normalized: normalizedIntensity(in: definition))
    }

    /// A filter at its default intensity is a passthrough.
    public func isActive(in definition: FilterDefinition) -> Bool {
        normalizedIntensity(in: definition) != definition.normalizedDefault
    }

    private static let knownKeys: Set<String> = ["type", "normalizedIntensity", "displayName", "version", "file"]

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        type = try c.decode(String.self, forKey: AnyCodingKey("type"))
        normalizedIntensity = try c.decodeIfPresent(Double.self, forKey: AnyCodingKey("normalizedIntensity"))
        displayName = try c.decodeIfPresent(String.self, forKey: AnyCodingKey("displayName"))
        let versionKey = AnyCodingKey("version")
        if let number = try? c.decodeIfPresent(Int64.self, forKey: versionKey) {
            version = String(number)
        } else {
            version = try c.decodeIfPresent(String.self, forKey: versionKey)
        }
        file = try c.decodeIfPresent(String.self, forKey: AnyCodingKey("file"))
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
        for (k, v) in parameters { try c.encode(v, forKey: AnyCodingKey(k)) }
    }
}
