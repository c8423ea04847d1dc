/// A still-image session (SDK: `SessionImage`).
public struct SessionImage: Hashable, Sendable, Codable {
    public var source: String
    public var cropRect: Rect?
    public var preferredTransform: SessionTransform?
    /// Default: the crop's size (the whole oriented picture without a crop).
    public var renderSize: Size?
    public var filters: [SessionFilter]
    public var primaryFilter: SessionFilter?

    public init(source: String, cropRect: Rect? = nil, preferredTransform: SessionTransform? = nil,
                renderSize: Size? = nil, filters: [SessionFilter] = [], primaryFilter: SessionFilter? = nil) {
        self.source = source
        self.cropRect = cropRect
        self.preferredTransform = preferredTransform
        self.renderSize = renderSize
        self.filters = filters
        self.primaryFilter = primaryFilter
    }

    private enum CodingKeys: String, CodingKey {
        case source, cropRect, preferredTransform, renderSize, filters, primaryFilter
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        source = try c.decode(String.self, forKey: .source)
        cropRect = try c.decodeIfPresent(Rect.self, forKey: .cropRect)
        preferredTransform = try c.decodeIfPresent(SessionTransform.self, forKey: .preferredTransform)
        renderSize = try c.decodeIfPresent(Size.self, forKey: .renderSize)
        filters = try c.decodeIfPresent([SessionFilter].self, forKey: .filters) ?? []
        primaryFilter = try c.decodeIfPresent(SessionFilter.self, forKey: .primaryFilter)
    }
}
