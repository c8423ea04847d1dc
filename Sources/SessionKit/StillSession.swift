extension Session {
    /// The one-segment session a still of segment `index` is drawn from (docs/operations.md): that
    /// segment alone, with `filters` as its only filters (a thumbnail's optional filter;
    /// none for frames). A worker then needs only that segment's media, and the filter is
    /// validated and its files resolved like any other. `nil` when there is no such segment.
    public func stillSession(segment index: Int, filters: [SessionFilter]) -> Session? {
        guard var video, video.videoSegments.indices.contains(index) else { return nil }
        var segment = video.videoSegments[index]
        segment.filters = filters
        video.videoSegments = [segment]
        video.filters = []
        video.primaryFilter = nil
        var copy = self
        copy.video = video
        copy.image = nil
        return copy
    }
}
