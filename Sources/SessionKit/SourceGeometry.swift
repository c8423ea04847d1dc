/// What a template needs of a source to carry its edit to other media (docs/session-format.md,
/// "Templates"): the picture's natural size, the display matrix the file asks for, and its
/// length. A render's sidecar records it for each source, so a saved edit can be applied
/// to other media when the old files are gone.
public struct SourceGeometry: Hashable, Sendable, Codable {
    public var naturalSize: Size
    /// The file's display matrix; `nil` when it has none.
    public var displayTransform: SessionTransform?
    /// Seconds.
    public var duration: Rational

    public init(naturalSize: Size, displayTransform: SessionTransform?, duration: Rational) {
        self.naturalSize = naturalSize
        self.displayTransform = displayTransform
        self.duration = duration
    }

    /// As `MediaInfo.orientation`.
    public var orientation: Orientation { displayTransform.flatMap(Orientation.init) ?? .up }
}

extension MediaInfo {
    public var geometry: SourceGeometry {
        SourceGeometry(naturalSize: naturalSize, displayTransform: displayTransform, duration: duration)
    }
}
