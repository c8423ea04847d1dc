/// The exact output timeline of a video session (docs/timeline.md, docs/geometry.md): which source frame
/// every output frame shows, and the geometry and filters of each segment.
///
/// Built from a session that passed validation and the probes of its media.
public struct Timeline: Hashable, Sendable {
    public let renderWidth: Int
    public let renderHeight: Int
    /// `1 / F` seconds.
    public let frameDuration: Rational
    public let segments: [SegmentTimeline]
    /// Where the frame rate and the render size came from (given, or which default).
    public let origins: Origins

    public struct Origins: Hashable, Sendable {
        public let frameDuration: String
        public let renderSize: String
    }

    public var frameRate: Rational { .one / frameDuration }
    public var totalFrames: Int64 { segments.last.map { $0.outputStartFrame + $0.frameCount } ?? 0 }
    public var duration: Rational { Rational(Int(totalFrames)) * frameDuration }

    public init(session: Session, media: [String: MediaInfo]) throws(TimelineError) {
        guard let video = session.video, let first = video.videoSegments.first else {
            throw TimelineError("the session has no video segments")
        }
        guard let firstInfo = media[first.source] else { throw TimelineError("no probe for '\(MediaURL.redact(first.source))'") }
        let rate = try Timeline.outputFrameDuration(video: video, media: media)
        frameDuration = rate.0
        let render = Timeline.renderSize(video: video, firstInfo: firstInfo)
        origins = Origins(frameDuration: rate.origin, renderSize: render.origin)
        guard render.width > 0, render.height > 0 else { throw TimelineError("renderSize rounds to \(render.width)×\(render.height)") }
        (renderWidth, renderHeight) = (render.width, render.height)
        let renderSize = Size(width: Double(render.width), height: Double(render.height))
        guard let videoSpeed = Rational.approximating(video.speedMultiplier ?? 1), videoSpeed.isPositive else {
            throw TimelineError("video.speedMultiplier is not a positive number")
        }

        var start: Int64 = 0
        var built: [SegmentTimeline] = []
        built.reserveCapacity(video.videoSegments.count)
        for (index, segment) in video.videoSegments.enumerated() {
            guard let info = media[segment.source] else { throw TimelineError("no probe for '\(MediaURL.redact(segment.source))'") }
            guard let speed = Rational.approximating(segment.speedMultiplier ?? 1), speed.isPositive else {
                throw TimelineError("video.videoSegments[\(index)].speedMultiplier is not a positive number")
            }
            let trimStart = segment.trimStartTime?.rational ?? .zero
            let trimDuration = segment.trimDuration?.rational ?? (info.duration - trimStart)
            let totalSpeed = speed * videoSpeed
            let count = Timeline.frameCount(trimDuration: trimDuration, speed: totalSpeed, frameDuration: frameDuration)
            var orientation = info.orientation
            if let transform = segment.preferredTransform {
                guard let chosen = Orientation(transform) else {
                    throw TimelineError("video.videoSegments[\(index)].preferredTransform is not axis-aligned")
                }
                orientation = chosen
            }
            let actual = orientation.actualSize(of: info.naturalSize)
            let crop = segment.cropRect ?? suggestedCropRect(actualSize: actual, renderSize: renderSize)
            var filters = segment.filters + video.filters
            if let primary = video.primaryFilter { filters.append(primary) }
            built.append(SegmentTimeline(
                index: index, source: segment.source, frameCount: count, outputStartFrame: start,
                trimStart: trimStart, trimDuration: trimDuration, speed: totalSpeed, frameDuration: frameDuration,
                orientation: orientation, naturalSize: info.naturalSize, actualSize: actual, cropRect: crop,
                filters: filters, hasAudio: info.hasAudio, location: segment.location, sourceOrigin: info.videoOrigin))
            start += count
        }
        segments = built
    }

    /// `n_s = floor(R_s × F + 1/2)` with `R_s = trimDuration / v_s`, exactly.
    public static func frameCount(trimDuration: Rational, speed: Rational, frameDuration: Rational) -> Int64 {
        guard speed.isPositive, frameDuration.isPositive, trimDuration.isPositive else { return 0 }
        return (trimDuration / speed / frameDuration).roundedHalfUp
    }

    /// `video.frameDuration`, else the shortest segment frame duration, as the SDK picks it
    /// (docs/timeline.md): a segment's own `frameDuration`, else its source's nominal rate,
    /// else 1/30 s. Returns the choice and where it came from.
    public static func outputFrameDuration(video: SessionVideo, media: [String: MediaInfo])
        throws(TimelineError) -> (Rational, origin: String) {
        if let given = video.frameDuration {
            guard let r = given.rational, r.isPositive else { throw TimelineError("video.frameDuration is not positive") }
            return (r, "video.frameDuration")
        }
        var best: (Rational, String)?
        for (index, segment) in video.videoSegments.enumerated() {
            let path = "video.videoSegments[\(index)]"
            let candidate: (Rational, String)
            if let own = segment.frameDuration {
                guard let r = own.rational, r.isPositive else { throw TimelineError("\(path).frameDuration is not positive") }
                candidate = (r, "\(path).frameDuration")
            } else if let nominal = media[segment.source]?.frameDuration {
                candidate = (nominal, "\(path): its source's nominal rate")
            } else {
                candidate = (Rational(1, 30)!, "\(path): 1/30 s, its source has no known rate")
            }
            if best.map({ candidate.0 < $0.0 }) ?? true { best = candidate }
        }
        guard let best else { throw TimelineError("the session has no video segments") }
        return best
    }

    /// `video.renderSize`, else the first segment's `cropRect` size, else its `actualSize`,
    /// rounded down to even numbers; with where it came from.
    public static func renderSize(video: SessionVideo, firstInfo: MediaInfo) -> (width: Int, height: Int, origin: String) {
        if let size = video.renderSize {
            let even = evenRenderSize(size)
            return (even.width, even.height, "video.renderSize")
        }
        let first = video.videoSegments.first
        if let crop = first?.cropRect {
            let even = evenRenderSize(crop.size)
            return (even.width, even.height, "video.videoSegments[0].cropRect")
        }
        let orientation = first?.preferredTransform.flatMap(Orientation.init) ?? firstInfo.orientation
        let even = evenRenderSize(orientation.actualSize(of: firstInfo.naturalSize))
        return (even.width, even.height, "video.videoSegments[0]: its actualSize")
    }
}

/// One segment on the output timeline.
public struct SegmentTimeline: Hashable, Sendable, Codable {
    public let index: Int
    public let source: String
    /// `n_s`.
    public let frameCount: Int64
    public let outputStartFrame: Int64
    public let trimStart: Rational
    public let trimDuration: Rational
    /// `v_s`: segment speed × video speed.
    public let speed: Rational
    public let frameDuration: Rational
    public let orientation: Orientation
    public let naturalSize: Size
    public let actualSize: Size
    /// Pixels of the oriented picture (explicit, or `suggestedCropRect()`).
    public let cropRect: Rect
    /// The chain in the order it is applied: segment, video, video primary.
    public let filters: [SessionFilter]
    public let hasAudio: Bool
    public let location: Location?
    /// The container time of the source clock's zero (`MediaInfo.videoOrigin`), when the
    /// probe knew it.
    public let sourceOrigin: Rational?

    /// `t = trimStart + k × v_s / F`, seconds on the source clock.
    public func sourceTime(ofFrame k: Int64) -> Rational {
        trimStart + Rational(Int(k)) * speed * frameDuration
    }

    /// `n_s / F`: the segment's exact length on the output, for video and audio alike.
    public var outputDuration: Rational { Rational(Int(frameCount)) * frameDuration }

    /// The segment on an output of its own, starting at frame 0 (a per-segment export).
    public func alone() -> SegmentTimeline {
        SegmentTimeline(index: index, source: source, frameCount: frameCount, outputStartFrame: 0, trimStart: trimStart,
                        trimDuration: trimDuration, speed: speed, frameDuration: frameDuration, orientation: orientation,
                        naturalSize: naturalSize, actualSize: actualSize, cropRect: cropRect, filters: filters,
                        hasAudio: hasAudio, location: location, sourceOrigin: sourceOrigin)
    }
}

public struct TimelineError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
