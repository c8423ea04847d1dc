import Foundation
import SessionKit

/// Everything a shard's bytes depend on, and nothing else (docs/rendering.md, "Reusing
/// chunks"): two shard specs with the same recipe render the same bytes, so a chunk is
/// kept by the SHA-256 of its recipe and an edited session re-renders only what changed.
///
/// A video shard depends on its segment's timing, geometry and filters, its frames, the
/// output's size and rate, the encoder settings, the engine version, and the content of
/// its source and of its filter files — not on where it lands on the output or what the
/// files are called. The audio track depends on every segment's timing and the sources
/// with sound, not on any picture setting.
extension ShardSpec {
    private struct Video: Encodable {
        var engine: String
        var settings: EncoderSettings
        var width: Int
        var height: Int
        var frameDuration: Rational
        var source: String
        var trimStart: Rational
        var trimDuration: Rational
        var speed: Rational
        var orientation: Orientation
        var naturalSize: Size
        var cropRect: Rect
        var filters: [SessionFilter]
        var customFilters: [CustomFilterFile]
        /// Filter files: reference (as the filters name them) → content id.
        var filterFiles: [String: String]
        var startFrame: Int64
        var endFrame: Int64
    }

    private struct Audio: Encodable {
        struct Segment: Encodable {
            var source: String?
            var trimStart: Rational
            var trimDuration: Rational
            var speed: Rational
            var frameCount: Int64
        }
        var engine: String
        var settings: EncoderSettings
        var frameDuration: Rational
        var segments: [Segment]
    }

    /// The SHA-256 (hex) of the recipe: the shard's content hash.
    public func recipeKey() throws -> String {
        switch task.kind {
        case .audio, .segmentAudio:
            // A segment's audio alone is the whole track of a one-segment timeline: same recipe, same bytes.
            return try Self.key(Audio(engine: engine, settings: settings, frameDuration: output.frameDuration,
                                      segments: timeline.map {
                                          .init(source: $0.hasAudio ? files[$0.source] : nil, trimStart: $0.trimStart,
                                                trimDuration: $0.trimDuration, speed: $0.speed, frameCount: $0.frameCount)
                                      }))
        case .video:
            guard let segment, let source = files[segment.source] else {
                throw EngineError("shard spec: segment \(task.segment) or its source is missing")
            }
            return try Self.key(Video(
                engine: engine, settings: settings, width: output.width, height: output.height,
                frameDuration: output.frameDuration, source: source, trimStart: segment.trimStart,
                trimDuration: segment.trimDuration, speed: segment.speed, orientation: segment.orientation,
                naturalSize: segment.naturalSize, cropRect: segment.cropRect, filters: segment.filters,
                customFilters: customFilters, filterFiles: files.filter { $0.key != segment.source },
                startFrame: task.startFrame, endFrame: task.endFrame))
        }
    }

    private static func key<T: Encodable>(_ recipe: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Digest.sha256(try encoder.encode(recipe))
    }
}
