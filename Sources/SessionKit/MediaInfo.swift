/// What the engine's probe learned about one media file. SessionKit never opens media
/// (docs/architecture.md): validation and the timeline take these values.
public struct MediaInfo: Hashable, Sendable, Codable {
    /// Seconds, on the source's own clock (first video frame at 0).
    public var duration: Rational
    /// Nominal frame duration in seconds (`r_frame_rate`, else the average); `nil` when unknown.
    public var frameDuration: Rational?
    public var codedWidth: Int
    public var codedHeight: Int
    public var sampleAspect: Rational
    /// The display matrix as an AVFoundation transform; `nil` when the file has none.
    public var displayTransform: SessionTransform?
    public var hasAudio: Bool
    public var isStillImage: Bool
    public var codec: String
    public var colorPrimaries: String?
    public var colorTransfer: String?
    public var colorMatrix: String?
    public var colorRange: String?
    /// libavutil's chroma-location name (`left`, `center`, `topleft`); nil when undeclared.
    public var chromaLocation: String?
    /// A photo's EXIF `Orientation` tag (1…8); `nil` when it has none.
    public var exif: Int?
    /// Where the source's clock starts: the container time (seconds) of the first video
    /// frame the decoder gives. Known from the probe, a reader need not decode it again
    /// (nor fetch the first keyframe) to place its frames and samples; `nil` when unknown.
    public var videoOrigin: Rational?

    public init(duration: Rational, frameDuration: Rational?, codedWidth: Int, codedHeight: Int,
                sampleAspect: Rational = .one, displayTransform: SessionTransform? = nil, hasAudio: Bool = false,
                isStillImage: Bool = false, codec: String = "h264", colorPrimaries: String? = nil,
                colorTransfer: String? = nil, colorMatrix: String? = nil, colorRange: String? = nil, chromaLocation: String? = nil, exif: Int? = nil,
                videoOrigin: Rational? = nil) {
        self.duration = duration
        self.frameDuration = frameDuration
        self.codedWidth = codedWidth
        self.codedHeight = codedHeight
        self.sampleAspect = sampleAspect
        self.displayTransform = displayTransform
        self.hasAudio = hasAudio
        self.isStillImage = isStillImage
        self.codec = codec
        self.colorPrimaries = colorPrimaries
        self.colorTransfer = colorTransfer
        self.colorMatrix = colorMatrix
        self.colorRange = colorRange
        self.chromaLocation = chromaLocation
        self.exif = exif
        self.videoOrigin = videoOrigin
    }

    /// The coded picture with its sample aspect applied (docs/geometry.md).
    public var naturalSize: Size {
        let sar = sampleAspect.isPositive ? sampleAspect.doubleValue : 1
        return Size(width: (Double(codedWidth) * sar).rounded(), height: Double(codedHeight))
    }

    /// The orientation the file asks for; a display matrix that is not axis-aligned
    /// (rare: a free rotation) is treated as upright.
    /// The orientation a photo's EXIF tag asks for.
    public var exifOrientation: Orientation? { exif.flatMap(Orientation.init(exif:)) }

    public var orientation: Orientation {
        displayTransform.flatMap(Orientation.init) ?? .up
    }
}

/// A media reference after resolution and probing, as validation sees it.
public enum MediaStatus: Hashable, Sendable {
    case available(MediaInfo)
    case unavailable(String)
}
