/// One piece of source media placed on the output timeline (SDK: `SessionVideoSegment`).
/// Optional fields are `nil` when the document omits them; their defaults depend on the
/// media and are resolved by `Timeline`.
public struct SessionVideoSegment: Hashable, Sendable, Codable {
    /// A media reference: a path relative to the session file, an absolute path, or
    /// `sha256:<hex>`.
    public var source: String
    public var trimStartTime: SessionTime?
    /// Default: the rest of the media after `trimStartTime`.
    public var trimDuration: SessionTime?
    public var speedMultiplier: Double?
    /// Default: the source's display matrix.
    public var preferredTransform: SessionTransform?
    /// Pixels of the oriented picture, origin top-left. Default: `suggestedCropRect()`.
    public var cropRect: Rect?
    public var filters: [SessionFilter]
    /// Default: the source's average frame duration, or 1/30 s.
    public var frameDuration: SessionTime?
    public var location: Location?

    public init(source: String, trimStartTime: SessionTime? = nil, trimDuration: SessionTime? = nil,
                speedMultiplier: Double? = nil, preferredTransform: SessionTransform? = nil,
                cropRect: Rect? = nil, filters: [SessionFilter] = [], frameDuration: SessionTime? = nil,
                location: Location? = nil) {
        self.source = source
        self.trimStartTime = trimStartTime
        self.trimDuration = trimDuration
        self.speedMultiplier = speedMultiplier
        self.preferredTransform = preferredTransform
        self.cropRect = cropRect
        self.filters = filters
        self.frameDuration = frameDuration
        self.location = location
    }

    private enum CodingKeys: String, CodingKey {
        case source, trimStartTime, trimDuration, speedMultiplier, preferredTransform, cropRect,
             filters, frameDuration, location
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        source = try c.decode(String.self, forKey: .source)
        trimStartTime = try c.decodeIfPresent(SessionTime.self, forKey: .trimStartTime)
        trimDuration = try c.decodeIfPresent(SessionTime.self, forKey: .trimDuration)
        speedMultiplier = try c.decodeIfPresent(Double.self, forKey: .speedMultiplier)
        preferredTransform = try c.decodeIfPresent(SessionTransform.self, forKey: .preferredTransform)
        cropRect = try c.decodeIfPresent(Rect.self, forKey: .cropRect)
        filters = try c.decodeIfPresent([SessionFilter].self, forKey: .filters) ?? []
        frameDuration = try c.decodeIfPresent(SessionTime.self, forKey: .frameDuration)
        location = try c.decodeIfPresent(Location.self, forKey: .location)
    }
}
