import CFFmpeg
import Foundation
import SessionKit

/// How a thumbnail meets its bounding box (the SDK's `contentMode`). Content is never
/// clipped: `fill` covers the box, so one side may exceed it.
public enum ContentMode: String, Codable, Sendable, CaseIterable {
    case fit, fill
}

/// One picture of a segment: a thumbnail (`requestThumbnail(boundingSize:contentMode:filter:)`)
/// or a frame (`generateFrame(time:cropped:maximumSize:)`), docs/operations.md. Thumbnails apply the
/// segment's filters — in a still session (`Session.stillSession`) exactly the requested
/// filter or none; frames never apply filters.
public struct StillRequest: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable { case thumbnail, frame }

    public var kind: Kind
    public var segment: Int
    /// Source time within the segment's whole media (not its trim); `nil`: the trim start.
    public var time: SessionTime?
    /// Thumbnail: the bounding box (required). Frame: the maximum size (optional).
    public var box: Size?
    public var mode: ContentMode
    /// Frame only: apply the segment's crop (default size: the video's renderSize).
    public var cropped: Bool
    public var png: Bool
    /// Seconds either side of `time` within which the nearest keyframe may be shown
    /// instead of the exact frame (`requestedTimeToleranceBefore/After`); nil or 0: exact.
    public var tolerance: SessionTime?

    public init(kind: Kind, segment: Int, time: SessionTime? = nil, box: Size? = nil, mode: ContentMode = .fit,
                cropped: Bool = false, png: Bool = false, tolerance: SessionTime? = nil) {
        self.kind = kind
        self.segment = segment
        self.time = time
        self.box = box
        self.mode = mode
        self.cropped = cropped
        self.png = png
        self.tolerance = tolerance
    }

    /// The SDK's limit for thumbnails.
    public static let maximumThumbnailSide = 400.0
    /// The largest tolerance, seconds.
    public static let maximumTolerance = 3600.0
}

/// A request that cannot be served, named after what the user gave.
public struct StillRequestError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What a request will draw, worked out before any decoding: also what its cache key is
/// made of, so two requests that would draw the same picture share an entry.
public struct StillPlan: Sendable, Hashable {
    public let source: String
    public let orientation: Orientation
    public let sourceTime: Rational
    /// Region of the oriented picture that is drawn.
    public let cropRect: Rect
    public let width: Int
    public let height: Int
    public let filters: [SessionFilter]
    public let png: Bool
    /// The picture's pixels per pixel of the rendered frame, so that filters with lengths
    /// in render-size pixels (blur, edges) look as the rendered frame scaled down.
    public var pixelScale: Double = 1
    /// Seconds either side of `sourceTime` a keyframe may be shown from; zero: exact.
    public var tolerance: Rational = .zero
}

/// Draws stills of a loaded (one-segment or whole) session: decode the frame on screen at
/// the time (docs/timeline.md), orient, crop, scale with the engine's pipeline, filter, encode.
public struct StillRenderer: Sendable {
    public let loaded: LoadedSession
    public let timeline: Timeline
    /// JPEG quality of thumbnails and frames.
    public var quality = 0.9

    public init(loaded: LoadedSession) throws {
        self.loaded = loaded
        timeline = try loaded.timeline()
    }

    private func segment(_ index: Int) throws(StillRequestError) -> SegmentTimeline {
        guard timeline.segments.indices.contains(index) else {
            throw StillRequestError("--segment \(index): the session has \(timeline.segments.count) segment(s), 0 … \(timeline.segments.count - 1)")
        }
        return timeline.segments[index]
    }

    public func plan(_ request: StillRequest) throws(StillRequestError) -> StillPlan {
        let segment = try segment(request.segment)
        guard let info = loaded.probes[segment.source] else {
            throw StillRequestError("video.videoSegments[\(request.segment)].source: '\(MediaURL.redact(segment.source))' is not available")
        }
        let time: Rational
        if let requested = request.time {
            guard let t = requested.rational, t >= .zero, t <= info.duration else {
                throw StillRequestError("--time \(request.time.map { formatSeconds($0.seconds) } ?? "?") is outside the segment's media, 0 … \(formatSeconds(info.duration.doubleValue))")
            }
            time = t
        } else {
            time = segment.trimStart
        }
        var tolerance = Rational.zero
        if let asked = request.tolerance {
            guard let t = asked.rational, t >= .zero, asked.seconds <= StillRequest.maximumTolerance else {
                throw StillRequestError("--tolerance \(formatSeconds(asked.seconds)): use 0 … \(Int(StillRequest.maximumTolerance)) seconds")
            }
            tolerance = t
        }
        var plan = try geometry(request, segment: segment, time: time)
        plan.tolerance = tolerance
        return plan
    }

    private func geometry(_ request: StillRequest, segment: SegmentTimeline, time: Rational) throws(StillRequestError) -> StillPlan {
        let actual = segment.actualSize
        var crop = Rect(x: 0, y: 0, width: actual.width, height: actual.height)
        var base = actual
        switch request.kind {
        case .thumbnail:
            guard let box = request.box else { throw StillRequestError("a thumbnail needs --size WxH") }
            guard box.width >= 1, box.height >= 1, box.width <= StillRequest.maximumThumbnailSide, box.height <= StillRequest.maximumThumbnailSide else {
                throw StillRequestError("--size \(Int(box.width))x\(Int(box.height)): a thumbnail's bounding size is 1x1 … 400x400")
            }
            let sx = box.width / actual.width, sy = box.height / actual.height
            let scale = request.mode == .fit ? min(sx, sy) : max(sx, sy)
            let width = max(1, Int((actual.width * scale).rounded())), height = max(1, Int((actual.height * scale).rounded()))
            // A render pixel covers cropRect/renderSize of the picture; a thumbnail pixel actual/size.
            let renderX = Double(timeline.renderWidth) / segment.cropRect.width
            let renderY = Double(timeline.renderHeight) / segment.cropRect.height
            let pixelScale = ((Double(width) / actual.width) * (Double(height) / actual.height) / (renderX * renderY)).squareRoot()
            return StillPlan(source: segment.source, orientation: segment.orientation, sourceTime: time, cropRect: crop,
                             width: width, height: height, filters: segment.filters, png: request.png, pixelScale: pixelScale)
        case .frame:
            if request.cropped {
                crop = segment.cropRect
                base = Size(width: Double(timeline.renderWidth), height: Double(timeline.renderHeight))
            }
            var scale = 1.0
            if let box = request.box {
                guard box.width >= 1, box.height >= 1, box.width <= 16384, box.height <= 16384 else {
                    throw StillRequestError("--max-size \(Int(box.width))x\(Int(box.height)): use 1x1 … 16384x16384")
                }
                scale = min(1, box.width / base.width, box.height / base.height)
            }
            return StillPlan(source: segment.source, orientation: segment.orientation, sourceTime: time, cropRect: crop,
                             width: max(1, Int((base.width * scale).rounded())), height: max(1, Int((base.height * scale).rounded())),
                             filters: [], png: request.png)
        }
    }

    /// Decodes, processes and writes the still to `path`; returns the time (on the
    /// media's clock) of the frame it shows. `decoders` keeps clip `clipKey` open for the
    /// next request; without them the clip is opened for this picture alone.
    @discardableResult
    public func render(_ plan: StillPlan, to path: String, decoders: StillDecoders? = nil, clipKey: String? = nil) throws -> Rational {
        guard let info = loaded.probes[plan.source] else { throw EngineError("'\(MediaURL.redact(plan.source))' is not available") }
        let chain = try loaded.chain(plan.filters, pixelScale: plan.pixelScale)
        let (frame, shown) = try picture(plan, info: info, decoders: decoders ?? StillDecoders(clips: 1), clipKey: clipKey ?? plan.source)
        let processor = try FrameProcessor(
            geometry: .init(orientation: plan.orientation, naturalSize: info.naturalSize, cropRect: plan.cropRect),
            renderWidth: plan.width, renderHeight: plan.height, chain: chain)
        let picture = try processor.processRGB(frame)
        try StillImageWriter(png: plan.png, quality: quality).write(picture, width: plan.width, height: plan.height, to: path)
        return shown
    }

    /// Before drawing `plans[0]`: decodes together the keyframes it and the next tolerant
    /// plans of its clip will show (unless its own is decoded already), so that frame
    /// threads decode them at once; each plan's `render` then finds its frame decoded. Only
    /// speed depends on it: a keyframe it misses is decoded by `render`.
    public func prepareKeyframes(_ plans: [(plan: StillPlan, clipKey: String)], decoders: StillDecoders) {
        // The first plan's clip: a batch starts at the picture drawn next.
        guard let first = plans.first, first.plan.tolerance.isPositive else { return }
        let mine = plans.filter { $0.clipKey == first.clipKey && $0.plan.tolerance.isPositive }
        guard mine.count > 1, let origin = loaded.probes[first.plan.source]?.videoOrigin else { return }
        do {
            guard let reader = try decoders.reader(first.clipKey, media: { try loaded.input(first.plan.source) }, origin: origin) else { return }
            try reader.prepareKeyframes(near: mine.map { ($0.plan.sourceTime, $0.plan.tolerance) })
        } catch {
            decoders.close(first.clipKey)   // the pictures are decoded one by one, and fail there if they must
        }
    }

    /// The source frame a plan shows: from an open `ClipReader` when the clip has an
    /// index, else decoded from the keyframe before it by `FrameSelector`.
    private func picture(_ plan: StillPlan, info: MediaInfo, decoders: StillDecoders, clipKey: String) throws -> (Frame, Rational) {
        if let origin = info.videoOrigin,
           let reader = try decoders.reader(clipKey, media: { try loaded.input(plan.source) }, origin: origin) {
            do {
                if plan.tolerance.isPositive, let keyframe = try reader.keyframePicture(near: plan.sourceTime, tolerance: plan.tolerance) {
                    return (keyframe.frame, keyframe.time)
                }
                let exact = try reader.picture(at: plan.sourceTime)
                return (exact.frame, exact.time)
            } catch is ClipReaderUnsuitable {
                decoders.close(clipKey, unsuitable: true)
            }
        }
        let source = try VideoSource(try loaded.input(plan.source))
        let selector = try FrameSelector(source: source, startingAt: plan.sourceTime)
        let (frame, _) = try selector.frame(at: plan.sourceTime)
        return (frame, source.time(of: frame))
    }

    /// A filmstrip's default tolerance: half the spacing of its pictures, so each shows the
    /// keyframe nearest its time when one is nearer than its neighbours' times.
    public func filmstripTolerance(segment index: Int, count: Int) throws(StillRequestError) -> SessionTime {
        let segment = try segment(index)
        guard (1...100).contains(count) else { throw StillRequestError("--count \(count): use 1 … 100") }
        return SessionTime(segment.trimDuration / Rational(2 * count))
    }

    /// `count` evenly spaced times over a segment's trimmed range, the first at its start.
    public func filmstripTimes(segment index: Int, count: Int) throws(StillRequestError) -> [SessionTime] {
        let segment = try segment(index)
        guard (1...100).contains(count) else { throw StillRequestError("--count \(count): use 1 … 100") }
        return (0..<count).map { i in
            SessionTime(segment.trimStart + segment.trimDuration * Rational(i) / Rational(count))
        }
    }
}

