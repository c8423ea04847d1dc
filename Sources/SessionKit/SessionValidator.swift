import Foundation

/// Checks a decoded session against docs/session-format.md, docs/timeline.md and docs/filters.md and reports every problem at once,
/// each with its JSON path and the numbers involved.
public struct SessionValidator: Sendable {
    public var filters: FilterRegistry
    /// Resolves filter files (`.cube` LUTs); `nil` skips file checks.
    public var locator: MediaLocator?
    /// Slack for a trim that ends just past the container's duration (rounding in muxers).
    public static let durationTolerance = Rational(1, 1000)!
    public static let maximumFrameRate = 1000.0

    public init(filters: FilterRegistry = .builtIn, locator: MediaLocator? = nil) {
        self.filters = filters
        self.locator = locator
    }

    /// `media` maps each media reference to its probe (or why it has none).
    public func validate(_ session: Session, media: [String: MediaStatus]) -> ValidationReport {
        var report = ValidationReport()
        let root = JSONPath()
        switch (session.video, session.image) {
        case (nil, nil):
            report.problem(root, "the session has neither 'video' nor 'image'; give exactly one")
        case (.some, .some):
            report.problem(root, "the session has both 'video' and 'image'; give exactly one")
        case (let video?, nil):
            validate(video, at: root["video"], media: media, into: &report)
        case (nil, let image?):
            validate(image, at: root["image"], media: media, into: &report)
        }
        if let location = session.location { validate(location, at: root["location"], into: &report) }
        return report
    }

    // MARK: Video

    private func validate(_ video: SessionVideo, at path: JSONPath, media: [String: MediaStatus],
                          into report: inout ValidationReport) {
        let videoSpeed = checkSpeed(video.speedMultiplier, at: path["speedMultiplier"], into: &report)
        if let duration = video.frameDuration { checkFrameDuration(duration, at: path["frameDuration"], into: &report) }
        let renderSize = checkRenderSize(video.renderSize, at: path["renderSize"], into: &report)
        checkFilters(video.filters, at: path["filters"], into: &report)
        if let primary = video.primaryFilter { checkFilter(primary, at: path["primaryFilter"], into: &report) }

        let segmentsPath = path["videoSegments"]
        guard let first = video.videoSegments.first else {
            report.problem(segmentsPath, "at least one segment is required")
            return
        }
        // Defaults as the SDK's (docs/timeline.md): the shortest frame duration of the segments,
        // the first segment's crop or picture size.
        let probes = media.compactMapValues { status -> MediaInfo? in
            if case .available(let info) = status { return info } else { return nil }
        }
        let allProbed = video.videoSegments.allSatisfy { probes[$0.source] != nil }
        let frameDuration = allProbed ? (try? Timeline.outputFrameDuration(video: video, media: probes))?.0 : nil
        var render: (width: Int, height: Int)? = renderSize
        if case .available(let info)? = media[first.source] {
            if render == nil, video.renderSize == nil, first.preferredTransform.map({ Orientation($0) != nil }) ?? true {
                let size = Timeline.renderSize(video: video, firstInfo: info)
                if size.width > 0, size.height > 0 { render = (size.width, size.height) }
                else if first.cropRect == nil {
                    report.problem(segmentsPath[0], "the first segment's picture (\(info.naturalSize)) is too small to render")
                } else if let crop = first.cropRect, crop.isFinite, crop.width > 0, crop.height > 0 {
                    report.problem(segmentsPath[0]["cropRect"], "\(crop) is under 2×2 pixels, too small for the render size it sets")
                }
            }
        }
        for (index, segment) in video.videoSegments.enumerated() {
            validate(segment, at: segmentsPath[index], media: media, videoSpeed: videoSpeed,
                     frameDuration: frameDuration, renderSize: render, into: &report)
        }
    }

    private func validate(_ segment: SessionVideoSegment, at path: JSONPath, media: [String: MediaStatus],
                          videoSpeed: Rational?, frameDuration: Rational?, renderSize: (width: Int, height: Int)?,
                          into report: inout ValidationReport) {
        let info = checkSource(segment.source, at: path["source"], media: media, into: &report)
        let speed = checkSpeed(segment.speedMultiplier, at: path["speedMultiplier"], into: &report)
        if let duration = segment.frameDuration { checkFrameDuration(duration, at: path["frameDuration"], into: &report) }
        if let location = segment.location { validate(location, at: path["location"], into: &report) }
        checkFilters(segment.filters, at: path["filters"], into: &report)

        let trimStart = segment.trimStartTime?.rational ?? .zero
        if trimStart < .zero {
            report.problem(path["trimStartTime"], "\(formatSeconds(trimStart.doubleValue)) is negative")
        }
        var trimDuration = segment.trimDuration?.rational
        if let given = trimDuration, !given.isPositive {
            report.problem(path["trimDuration"], "\(formatSeconds(given.doubleValue)) must be greater than 0")
            trimDuration = nil
        }
        if let info, !(trimStart < .zero) {
            let available = info.duration - trimStart
            if !available.isPositive {
                report.problem(path["trimStartTime"],
                    "\(formatSeconds(trimStart.doubleValue)) is at or beyond the media duration (\(formatSeconds(info.duration.doubleValue)))")
                trimDuration = nil
            } else if let given = trimDuration {
                if given - available > Self.durationTolerance {
                    report.problem(path["trimDuration"],
                        "\(formatSeconds(given.doubleValue)) exceeds duration - trimStartTime (\(formatSeconds(available.doubleValue)))")
                }
            } else if segment.trimDuration == nil {
                trimDuration = available
            }
        }

        if let trimDuration, let speed, let videoSpeed, let frameDuration {
            let total = speed * videoSpeed
            if Timeline.frameCount(trimDuration: trimDuration, speed: total, frameDuration: frameDuration) == 0 {
                let rendered = (trimDuration / total).doubleValue
                report.problem(path, "renders to 0 frames: \(formatSeconds(trimDuration.doubleValue)) at speed "
                    + "\(formatNumber(total.doubleValue)) lasts \(formatSeconds(rendered)), under half a frame at "
                    + "\(formatNumber((Rational.one / frameDuration).doubleValue)) fps")
            }
        }

        let orientation = checkOrientation(segment.preferredTransform, at: path["preferredTransform"],
                                           default: info?.orientation, into: &report)
        if let info, let orientation {
            checkCrop(segment.cropRect, at: path["cropRect"], actualSize: orientation.actualSize(of: info.naturalSize),
                      renderSize: renderSize, into: &report)
        } else if let crop = segment.cropRect {
            checkCropShape(crop, at: path["cropRect"], into: &report)
        }
    }

    // MARK: Image

    private func validate(_ image: SessionImage, at path: JSONPath, media: [String: MediaStatus],
                          into report: inout ValidationReport) {
        let info = checkSource(image.source, at: path["source"], media: media, into: &report)
        let render = checkRenderSize(image.renderSize, at: path["renderSize"], into: &report)
        checkFilters(image.filters, at: path["filters"], into: &report)
        if let primary = image.primaryFilter { checkFilter(primary, at: path["primaryFilter"], into: &report) }
        let checked = checkOrientation(image.preferredTransform, at: path["preferredTransform"],
                                       default: info?.orientation, into: &report)
        // A photo's EXIF orientation comes before preferredTransform (ImageGeometry).
        let orientation = info.flatMap { info in checked.map { _ in ImageGeometry.orientation(image: image, info: info) } }
        if let info, let orientation {
            checkCrop(image.cropRect, at: path["cropRect"], actualSize: orientation.actualSize(of: info.naturalSize),
                      renderSize: render, into: &report)
        } else if let crop = image.cropRect {
            checkCropShape(crop, at: path["cropRect"], into: &report)
        }
    }

    // MARK: Checks

    private func checkSource(_ source: String, at path: JSONPath, media: [String: MediaStatus],
                             into report: inout ValidationReport) -> MediaInfo? {
        switch media[source] {
        case .available(let info)?:
            return info
        case .unavailable(let reason)?:
            report.problem(path, reason)
        case nil:
            report.problem(path, "'\(MediaURL.redact(source))' was not resolved")
        }
        return nil
    }

    /// A speed multiplier must be a finite number above 0; returns it as a fraction.
    private func checkSpeed(_ value: Double?, at path: JSONPath, into report: inout ValidationReport) -> Rational? {
        let value = value ?? 1
        guard value.isFinite, value > 0 else {
            report.problem(path, "\(formatNumber(value)) must be a finite number greater than 0")
            return nil
        }
        guard let exact = Rational.approximating(value), exact.isPositive else {
            report.problem(path, "\(value) is too small or too large (use 0.000001 … 1000000)")
            return nil
        }
        if value > 1_000_000 || value < 0.000001 {
            report.problem(path, "\(value) is too small or too large (use 0.000001 … 1000000)")
            return nil
        }
        return exact
    }

    private func checkFrameDuration(_ time: SessionTime, at path: JSONPath, into report: inout ValidationReport) {
        guard let r = time.rational, r.isPositive else {
            report.problem(path, "\(formatSeconds(time.seconds)) must be greater than 0")
            return
        }
        let fps = (Rational.one / r).doubleValue
        if fps > Self.maximumFrameRate {
            report.problem(path, "\(formatSeconds(time.seconds)) is \(formatNumber(fps)) fps, above the limit of \(formatNumber(Self.maximumFrameRate)) fps")
        }
    }

    private func checkRenderSize(_ size: Size?, at path: JSONPath, into report: inout ValidationReport) -> (width: Int, height: Int)? {
        guard let size else { return nil }
        guard size.isFinitePositive else {
            report.problem(path, "\(size) must be positive")
            return nil
        }
        let even = evenRenderSize(size)
        guard even.width > 0, even.height > 0, size.width <= 16384, size.height <= 16384 else {
            report.problem(path, "\(size) is outside 2×2 … 16384×16384")
            return nil
        }
        if Double(even.width) != size.width || Double(even.height) != size.height {
            report.warning(path, "\(size) is rounded down to even numbers: \(even.width)×\(even.height)")
        }
        return even
    }

    private func checkOrientation(_ transform: SessionTransform?, at path: JSONPath, default fallback: Orientation?,
                                  into report: inout ValidationReport) -> Orientation? {
        guard let transform else { return fallback }
        guard let orientation = Orientation(transform) else {
            report.problem(path, "\(transform) is not one of the 8 axis-aligned orientations "
                + "(a, b, c, d must form a rotation by a multiple of 90°, optionally mirrored)")
            return nil
        }
        return orientation
    }

    private func checkCropShape(_ crop: Rect, at path: JSONPath, into report: inout ValidationReport) {
        if !crop.isFinite || crop.width <= 0 || crop.height <= 0 {
            report.problem(path, "\(crop) is empty (width and height must be greater than 0)")
        }
    }

    private func checkCrop(_ crop: Rect?, at path: JSONPath, actualSize: Size, renderSize: (width: Int, height: Int)?,
                           into report: inout ValidationReport) {
        guard let crop else { return }
        if !crop.isFinite || crop.width <= 0 || crop.height <= 0 {
            report.problem(path, "\(crop) is empty (width and height must be greater than 0)")
            return
        }
        guard crop.isInside(actualSize) else {
            report.problem(path, "\(crop) lies outside actualSize \(actualSize)")
            return
        }
        if let renderSize {
            let renderAspect = Double(renderSize.width) / Double(renderSize.height)
            if abs(crop.size.aspectRatio / renderAspect - 1) > 0.01 {
                report.warning(path, "aspect ratio \(formatNumber(crop.size.aspectRatio)) differs from renderSize "
                    + "\(renderSize.width)×\(renderSize.height) (\(formatNumber(renderAspect))); the crop is stretched to fill")
            }
        }
    }

    private func checkFilters(_ filters: [SessionFilter], at path: JSONPath, into report: inout ValidationReport) {
        for (index, filter) in filters.enumerated() { checkFilter(filter, at: path[index], into: &report) }
    }

    private func checkFilter(_ filter: SessionFilter, at path: JSONPath, into report: inout ValidationReport) {
        guard let definition = filters[filter.type] else {
            let hint = NearestName.suggestion(for: filter.type, among: filters.knownTypes).map { " (did you mean '\($0)'?)" } ?? ""
            report.problem(path["type"], "unknown filter type '\(filter.type)'\(hint); known types: "
                + filters.knownTypes.joined(separator: ", "))
            return
        }
        if let slider = definition.slider, let n = filter.normalizedIntensity,
           !(n.isFinite && slider.normalizedRange.contains(n)) {
            report.problem(path["normalizedIntensity"], "\(formatNumber(n)) is outside "
                + "\(formatNumber(slider.normalizedRange.lowerBound)) … \(formatNumber(slider.normalizedRange.upperBound)) for '\(filter.type)'")
        }
        if case .fileField(let key, _) = definition.input {
            guard let file = key == "image" ? filter.image : filter.file, !file.isEmpty else {
                report.problem(path[key], "is required for '\(filter.type)'")
                return
            }
            if let locator, case .failure(let error) = locator.resolve(file) {
                report.problem(path[key], error.description)
            }
        }
    }

    private func validate(_ location: Location, at path: JSONPath, into report: inout ValidationReport) {
        if !(location.latitude.isFinite && (-90...90).contains(location.latitude)) {
            report.problem(path["latitude"], "\(formatNumber(location.latitude)) is outside -90 … 90")
        }
        if !(location.longitude.isFinite && (-180...180).contains(location.longitude)) {
            report.problem(path["longitude"], "\(formatNumber(location.longitude)) is outside -180 … 180")
        }
    }
}
