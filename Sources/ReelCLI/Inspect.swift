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
            let summary = ImageSummary(image: image, info: info)
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
        let summary = TimelineSummary(timeline)
        if json { try printJSON(summary) } else { print(summary.text) }
    }
}

/// `reel inspect --json` for a video session.
struct TimelineSummary: Encodable {
    var kind = "video"
    var renderSize: [Int]
    var frameRate: Double
    var frameDuration: SessionTime
    var totalFrames: Int64
    var duration: Double
    var segments: [Segment]

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
        var filters: [String]
    }

    init(_ t: Timeline) {
        renderSize = [t.renderWidth, t.renderHeight]
        frameRate = t.frameRate.doubleValue
        frameDuration = SessionTime(t.frameDuration)
        totalFrames = t.totalFrames
        duration = t.duration.doubleValue
        segments = t.segments.map { s in
            Segment(source: s.source, frameCount: s.frameCount, outputStartFrame: s.outputStartFrame,
                    firstSourceTime: s.sourceTime(ofFrame: 0).doubleValue,
                    lastSourceTime: s.sourceTime(ofFrame: max(0, s.frameCount - 1)).doubleValue,
                    speed: s.speed.doubleValue, orientation: s.orientation.description,
                    naturalSize: s.naturalSize, actualSize: s.actualSize, cropRect: s.cropRect,
                    filters: s.filters.map(\.type))
        }
    }

    var text: String {
        var lines = ["render \(renderSize[0])×\(renderSize[1]) at \(formatNumber(frameRate)) fps: "
            + "\(totalFrames) frames, \(formatSeconds(duration))"]
        for (i, s) in segments.enumerated() {
            lines.append("  [\(i)] \(s.source): frames \(s.outputStartFrame)..<\(s.outputStartFrame + s.frameCount) "
                + "(\(s.frameCount)), source \(formatSeconds(s.firstSourceTime)) … \(formatSeconds(s.lastSourceTime)) "
                + "at speed \(formatNumber(s.speed)); \(s.orientation); actual \(s.actualSize), crop \(s.cropRect)"
                + (s.filters.isEmpty ? "" : "; filters \(s.filters.joined(separator: " → "))"))
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
    var filters: [String]

    init(image: SessionImage, info: MediaInfo) {
        let g = ImageGeometry(image: image, info: info)
        renderSize = [g.renderWidth, g.renderHeight]
        orientation = g.orientation.description
        actualSize = g.actualSize
        cropRect = g.cropRect
        filters = g.filters.map(\.type)
    }

    var text: String {
        "image \(renderSize[0])×\(renderSize[1]); \(orientation); actual \(actualSize), crop \(cropRect)"
            + (filters.isEmpty ? "" : "; filters \(filters.joined(separator: " → "))")
    }
}
