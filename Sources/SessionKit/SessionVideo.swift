/// The video of a session: segments in output order plus video-wide settings.
public struct SessionVideo: Hashable, Sendable, Codable {
    public var videoSegments: [SessionVideoSegment]
    /// Default: the first segment's `actualSize`; rounded down to even numbers.
    public var renderSize: Size?
    public var speedMultiplier: Double?
    public var filters: [SessionFilter]
    public var primaryFilter: SessionFilter?
    /// Output frame duration; default: the first segment's.
    public var frameDuration: SessionTime?

    public init(videoSegments: [SessionVideoSegment], renderSize: Size? = nil, speedMultiplier: Double? = nil,
                filters: [SessionFilter] = [], primaryFilter: SessionFilter? = nil,
                frameDuration: SessionTime? = nil) {
        self.videoSegments = videoSegments
        self.renderSize = renderSize
        self.speedMultiplier = speedMultiplier
        self.filters = filters
        self.primaryFilter = primaryFilter
        self.frameDuration = frameDuration
    }

    private enum CodingKeys: String, CodingKey {
        case videoSegments, renderSize, speedMultiplier, filters, primaryFilter, frameDuration
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        videoSegments = try c.decode([SessionVideoSegment].self, forKey: .videoSegments)
        renderSize = try c.decodeIfPresent(Size.self, forKey: .renderSize)
        speedMultiplier = try c.decodeIfPresent(Double.self, forKey: .speedMultiplier)
        filters = try c.decodeIfPresent([SessionFilter].self, forKey: .filters) ?? []
        primaryFilter = try c.decodeIfPresent(SessionFilter.self, forKey: .primaryFilter)
        frameDuration = try c.decodeIfPresent(SessionTime.self, forKey: .frameDuration)
    }
}
