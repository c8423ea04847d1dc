/// A saved edit applied to other media (docs/session-format.md, "Templates"): every
/// segment that names a replaced source reads the new one, with its geometry carried
/// over by fixed rules. Pure: the media are given as probes.
public enum Template {
    /// A replacement that cannot be made, named by the JSON path (or option) at fault.
    public struct Problem: Error, CustomStringConvertible, Equatable, Sendable {
        public let path: String
        public let message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Carries a crop rectangle (pixels of the oriented picture) from a picture of size
    /// `old` to one of size `new`. Its centre moves in proportion; its size is scaled by
    /// the larger of the two axes' ratios, keeping its aspect; where that does not fit, it
    /// shrinks about its centre until it does. Pictures of one aspect get the crop in
    /// proportion exactly.
    public static func carry(_ crop: Rect, from old: Size, to new: Size) -> Rect {
        guard old.isFinitePositive, new.isFinitePositive else { return crop }
        let sx = new.width / old.width, sy = new.height / old.height
        let cx = (crop.minX + crop.width / 2) * sx, cy = (crop.minY + crop.height / 2) * sy
        let scale = max(sx, sy)
        var width = crop.width * scale, height = crop.height * scale
        // The largest fraction of that size that stays inside about the centre.
        let room = [1, 2 * cx / width, 2 * (new.width - cx) / width, 2 * cy / height, 2 * (new.height - cy) / height]
        let fit = max(0, room.min() ?? 1)
        width *= fit
        height *= fit
        return Rect(x: cx - width / 2, y: cy - height / 2, width: width, height: height)
    }

    /// `session` with each segment whose `source` is a key of `replacements` reading its
    /// value instead. `old` is the replaced media's geometry (probed, or recorded by a
    /// sidecar), `new` the replacing media's probes. Trims stay in seconds and are cut at the new media's end; a crop is carried
    /// from the old oriented picture to the new one (`carry`); a `preferredTransform` that
    /// was the old media's own display matrix is dropped, so the new media's applies. The
    /// render size and frame duration are the template's and stay.
    public static func apply(_ session: Session, replacements: [String: String], old: [String: SourceGeometry],
                             new: [String: MediaInfo]) throws(Problem) -> Session {
        guard var video = session.video else {
            throw Problem(path: "--replace", message: "replacing media needs a video session")
        }
        let named = Set(video.videoSegments.map(\.source))
        for (replaced, _) in replacements.sorted(by: { $0.key < $1.key }) where !named.contains(replaced) {
            throw Problem(path: "--replace", message: "'\(MediaURL.redact(replaced))' is not a source of the session "
                + "(its sources: \(named.sorted().map { "'\(MediaURL.redact($0))'" }.joined(separator: ", ")))")
        }
        for (index, segment) in video.videoSegments.enumerated() {
            guard let replacement = replacements[segment.source] else { continue }
            let before = old[segment.source]
            if before == nil, segment.cropRect != nil || segment.preferredTransform != nil {
                throw Problem(path: "video.videoSegments[\(index)].source",
                              message: "the size of '\(MediaURL.redact(segment.source))' is not known (no file, no sidecar): "
                                  + "it is needed to carry the segment's crop and transform")
            }
            guard let after = new[replacement] else {
                throw Problem(path: "--replace", message: "'\(MediaURL.redact(replacement))' is not available")
            }
            video.videoSegments[index] = try carry(segment, at: index, to: replacement, from: before, to: after)
        }
        var copy = session
        copy.video = video
        return copy
    }

    private static func carry(_ segment: SessionVideoSegment, at index: Int, to replacement: String, from before: SourceGeometry?,
                              to after: MediaInfo) throws(Problem) -> SessionVideoSegment {
        var carried = segment
        carried.source = replacement
        let path = "video.videoSegments[\(index)]"
        // The transform: the session's own choice stays; the old media's display matrix goes.
        let oldOrientation = segment.preferredTransform.flatMap(Orientation.init) ?? before?.orientation ?? .up
        if let transform = segment.preferredTransform, let before, Orientation(transform) == before.orientation {
            carried.preferredTransform = nil
        }
        let newOrientation = carried.preferredTransform.flatMap(Orientation.init) ?? after.orientation
        if let crop = segment.cropRect, let before {
            carried.cropRect = carry(crop, from: oldOrientation.actualSize(of: before.naturalSize),
                                     to: newOrientation.actualSize(of: after.naturalSize))
        }
        // Trims: seconds kept, cut at the new end.
        let start = segment.trimStartTime?.rational ?? .zero
        guard start < after.duration else {
            throw Problem(path: "\(path).trimStartTime",
                          message: "starts at \(formatSeconds(start.doubleValue)), past the end of '\(MediaURL.redact(replacement))' "
                              + "(\(formatSeconds(after.duration.doubleValue)) long"
                              + (before.map { "; '\(MediaURL.redact(segment.source))' is \(formatSeconds($0.duration.doubleValue))" } ?? "") + ")")
        }
        if let duration = segment.trimDuration?.rational, start + duration > after.duration {
            carried.trimDuration = SessionTime(after.duration - start)
        }
        return carried
    }
}
