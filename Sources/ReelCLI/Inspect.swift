import ArgumentParser
import RenderEngine
import SessionKit

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a session's exact output timeline: frames, source times, geometry.")

    @OptionGroup var options: SessionOptions

    @Flag(help: "Print one JSON object on stdout.")
    var json = false

    func run() throws {
        let loaded = try options.loadValid()
        if let image = loaded.session.image {
            guard let info = loaded.probes[image.source] else { throw Reported(code: ExitStatus.failure) }
            let summary = ImageSummary(image: image, info: info, registry: loaded.registry)
            if json { try printJSON(summary) } else { print(summary.text) }
            return
        }
        let timeline: Timeline
        do {
            timeline = try loaded.timeline()
        } catch {
            printError("error: \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        }
        let summary = TimelineSummary(timeline, registry: loaded.registry, probes: loaded.probes)
        if json { try printJSON(summary) } else { print(summary.text) }
    }
}

/// `reel inspect --json` for a video session.
struct TimelineSummary: Encodable {
    var kind = "video"
    var renderSize: [Int]
    /// Where the render size came from: `video.renderSize` or the SDK's default.
    var renderSizeFrom: String
    var frameRate: Double
    var frameDuration: SessionTime
    /// Where the frame rate came from: `video.frameDuration` or the SDK's default.
    var frameRateFrom: String
    var totalFrames: Int64
    var duration: Double
    var segments: [Segment]
    /// How the farm cuts the job at the default 2-s keyframe interval (docs/rendering.md,
    /// "Pipeline"): the video shards and the pieces of the audio track in output order. A capacity
    /// model's shard plan (docs/operations.md, "Tracing a render").
    var shards: [Shard]

    struct Shard: Encodable {
        var kind: String
        var segment: Int
        var frames: Int64
        var outputStartFrame: Int64
        /// A piece of the audio track: the output frames its sound covers.
        var audioFrames: Int64?
    }

    struct Segment: Encodable {
        var source: String
        var frameCount: Int64
        var outputStartFrame: Int64
        var firstSourceTime: Double
        var lastSourceTime: Double
        var speed: Double
        var orientation: String
        var naturalSize: Size
        var actualSize: Size
        var cropRect: Rect
        var filters: [FilterSummary]
        /// The colour conversion the source needs before the filters (HDR → SDR), if any.
        var colour: String?
        /// How the source's Y′CbCr is read (docs/rendering.md, "Colour conversion"):
        /// `bt601 (assumed)` when the stream declares no matrix.
        var matrix: String?
        /// Where its chroma sits: `left (assumed)` when the stream declares nothing.
        var chromaLocation: String?
    }

    init(_ t: Timeline, registry: FilterRegistry, probes: [String: MediaInfo] = [:]) {
        renderSize = [t.renderWidth, t.renderHeight]
        renderSizeFrom = t.origins.renderSize
        frameRate = t.frameRate.doubleValue
        frameDuration = SessionTime(t.frameDuration)
        frameRateFrom = t.origins.frameDuration
        totalFrames = t.totalFrames
        duration = t.duration.doubleValue
        let plan = Plan(timeline: t, keyframeIntervalSeconds: Rational.approximating(EncoderSettings().keyframeIntervalSeconds) ?? Rational(2))
        shards = plan.tasks.map {
            Shard(kind: $0.kind.rawValue, segment: $0.segment, frames: $0.frameCount, outputStartFrame: $0.outputStartFrame,
                  audioFrames: $0.kind == .audio ? $0.endFrame - $0.startFrame : nil)
        }
        segments = t.segments.map { s in
            Segment(source: MediaURL.redact(s.source), frameCount: s.frameCount, outputStartFrame: s.outputStartFrame,
                    firstSourceTime: s.sourceTime(ofFrame: 0).doubleValue,
                    lastSourceTime: s.sourceTime(ofFrame: max(0, s.frameCount - 1)).doubleValue,
                    speed: s.speed.doubleValue, orientation: s.orientation.description,
                    naturalSize: s.naturalSize, actualSize: s.actualSize, cropRect: s.cropRect,
                    filters: s.filters.map { FilterSummary($0, registry: registry) },
                    colour: probes[s.source]?.hdrTransfer?.conversion,
                    matrix: probes[s.source]?.sourceColour.matrixDescription,
                    chromaLocation: probes[s.source]?.sourceColour.sitingDescription)
        }
    }

    var text: String {
        var lines = ["render \(renderSize[0])×\(renderSize[1]) at \(formatNumber(frameRate)) fps: "
            + "\(totalFrames) frames, \(formatSeconds(duration))",
            "  size from \(renderSizeFrom); rate from \(frameRateFrom)"]
        for (i, s) in segments.enumerated() {
            lines.append("  [\(i)] \(s.source): frames \(s.outputStartFrame)..<\(s.outputStartFrame + s.frameCount) "
                + "(\(s.frameCount)), source \(formatSeconds(s.firstSourceTime)) … \(formatSeconds(s.lastSourceTime)) "
                + "at speed \(formatNumber(s.speed)); \(s.orientation); actual \(s.actualSize), crop \(s.cropRect)"
                + (s.filters.isEmpty ? "" : "; filters \(s.filters.map(\.text).joined(separator: " → "))")
                + (s.matrix.map { "; Y′CbCr \($0)" } ?? "")
                + (s.chromaLocation.map { ", chroma \($0)" } ?? "")
                + (s.colour.map { "; colour \($0)" } ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}

/// `reel inspect --json` for an image session.
struct ImageSummary: Encodable {
    var kind = "image"
    var renderSize: [Int]
    var orientation: String
    var actualSize: Size
    var cropRect: Rect
    var filters: [FilterSummary]

    init(image: SessionImage, info: MediaInfo, registry: FilterRegistry) {
        let g = ImageGeometry(image: image, info: info)
        renderSize = [g.renderWidth, g.renderHeight]
        orientation = g.orientation.description
        actualSize = g.actualSize
        cropRect = g.cropRect
        filters = g.filters.map { FilterSummary($0, registry: registry) }
    }

    var text: String {
        "image \(renderSize[0])×\(renderSize[1]); \(orientation); actual \(actualSize), crop \(cropRect)"
            + (filters.isEmpty ? "" : "; filters \(filters.map(\.text).joined(separator: " → "))")
    }
}

/// One filter as rendered: its slider, the actual intensity it maps to, and whether it
/// does anything (`isActive` is the SDK's: the slider is off its default).
struct FilterSummary: Encodable {
    var type: String
    var normalizedIntensity: Double?
    var actualIntensity: Double?
    var isActive: Bool
    /// False when the filter is the identity at its intensity and is skipped.
    var rendered: Bool

    init(_ filter: SessionFilter, registry: FilterRegistry) {
        type = filter.type
        guard let definition = registry[filter.type] else {
            (isActive, rendered) = (false, false)
            return
        }
        if definition.slider != nil {
            normalizedIntensity = filter.normalizedIntensity(in: definition)
            actualIntensity = filter.actualIntensity(in: definition)
        }
        isActive = filter.isActive(in: definition)
        rendered = !filter.stages(in: definition).isEmpty
    }

    var text: String {
        guard let n = normalizedIntensity, let a = actualIntensity else { return type }
        return "\(type) \(formatNumber(n)) (actual \(formatNumber(a))\(rendered ? "" : ", identity"))"
    }
}
