import Foundation
import SessionKit

/// Everything a shard's bytes depend on, and nothing else (docs/rendering.md, "Reusing
/// chunks"): two shards with the same recipe render the same bytes, so a chunk is kept
/// by the SHA-256 of its recipe and an edited session re-renders only what changed.
///
/// A video shard depends on its segment's timing, geometry and filters, its frames, the
/// output's size and rate, the encoder settings, the engine version, and the content of
/// its source and of the job's filter files. The audio track depends on every segment's
/// timing and the sources with sound, not on any picture setting.
public enum ShardRecipe {
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
        var orientation: String
        var naturalSize: Size
        var cropRect: Rect
        var filters: [SessionFilter]
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

    /// The key of the audio track's recipe. `contentIDs`: reference → content id of every
    /// file of the job.
    public static func audioKey(timeline: Timeline, settings: EncoderSettings, contentIDs: [String: String]) throws -> String {
        try key(Audio(engine: EngineVersion.engine, settings: settings, frameDuration: timeline.frameDuration,
                      segments: timeline.segments.map {
                          .init(source: $0.hasAudio ? contentIDs[$0.source] : nil, trimStart: $0.trimStart,
                                trimDuration: $0.trimDuration, speed: $0.speed, frameCount: $0.frameCount)
                      }))
    }

    /// The key of a video shard's recipe: frames `[startFrame, endFrame)` of `segment`.
    /// `media`: which references are media (the rest are filter files, all part of it).
    public static func videoKey(timeline: Timeline, segment index: Int, startFrame: Int64, endFrame: Int64,
                                settings: EncoderSettings, contentIDs: [String: String], media: Set<String>) throws -> String {
        guard timeline.segments.indices.contains(index) else { throw EngineError("no segment \(index)") }
        let segment = timeline.segments[index]
        guard let source = contentIDs[segment.source] else { throw EngineError("'\(segment.source)' has no content id") }
        return try key(Video(
            engine: EngineVersion.engine, settings: settings, width: timeline.renderWidth, height: timeline.renderHeight,
            frameDuration: timeline.frameDuration, source: source, trimStart: segment.trimStart,
            trimDuration: segment.trimDuration, speed: segment.speed, orientation: segment.orientation.description,
            naturalSize: segment.naturalSize, cropRect: segment.cropRect, filters: segment.filters,
            filterFiles: contentIDs.filter { !media.contains($0.key) }, startFrame: startFrame, endFrame: endFrame))
    }

    private static func key<T: Encodable>(_ recipe: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Digest.sha256(try encoder.encode(recipe))
    }
}
