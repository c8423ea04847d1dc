/// Orientation, crop and output size of an image session (docs/geometry.md applied to a still).
public struct ImageGeometry: Hashable, Sendable {
    public let orientation: Orientation
    public let naturalSize: Size
    public let actualSize: Size
    public let cropRect: Rect
    public let renderWidth: Int
    public let renderHeight: Int
    /// The chain in order: `image.filters`, then `image.primaryFilter`.
    public let filters: [SessionFilter]

    /// Defaults: orientation from the file, crop = `suggestedCropRect()` for an explicit
    /// `renderSize` (else the whole picture), `renderSize` = the crop's size, rounded to even.
    public init(image: SessionImage, info: MediaInfo) {
        let orientation = Self.orientation(image: image, info: info)
        let actual = orientation.actualSize(of: info.naturalSize)
        let whole = Rect(x: 0, y: 0, width: actual.width, height: actual.height)
        let crop = image.cropRect ?? image.renderSize.map { suggestedCropRect(actualSize: actual, renderSize: $0) } ?? whole
        self.orientation = orientation
        naturalSize = info.naturalSize
        actualSize = actual
        cropRect = crop
        (renderWidth, renderHeight) = evenRenderSize(image.renderSize ?? crop.size)
        filters = image.filters + (image.primaryFilter.map { [$0] } ?? [])
    }

    /// A photo's own orientation (its EXIF tag) comes first, as `UIImage` shows it upright;
    /// `preferredTransform` turns the upright picture (docs/geometry.md).
    public static func orientation(image: SessionImage, info: MediaInfo) -> Orientation {
        let upright = info.exifOrientation ?? .up
        guard let transform = image.preferredTransform else { return info.exifOrientation ?? info.orientation }
        return upright.then(Orientation(transform) ?? .up)
    }
}
