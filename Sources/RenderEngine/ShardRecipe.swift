import Foundation
import SessionKit

/// Everything a shard's bytes depend on, and nothing else (docs/rendering.md, "Reusing
/// chunks"): two shard specs with the same recipe render the same bytes, so a chunk is
/// kept by the SHA-256 of its recipe and an edited session re-renders only what changed.
///
/// A video shard depends on its segment's timing, geometry and filters, its frames, the
/// output's size and rate, the encoder settings, the engine version, and the content of
/// its source and of its filter files — not on where it lands on the output or what the
/// files are called. A piece of the audio track depends on its segments' timing and
/// sources with sound, and on where its joins fall on the AAC frame grid counted from
/// its own encoder's start — not on any picture setting, nor on where the piece lands.
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
            var samples: Int64
        }
        var engine: String
        var settings: EncoderSettings
        var segments: [Segment]
        /// Silence before the first segment, samples encoded, packets kept: all counted
        /// from the piece's encoder.
        var silence: Int64
        var encoded: Int64
        var keptFrom: Int64
        var keptTo: Int64?
        /// For a piece that begins inside its first segment: the samples of that segment
        /// before its own (absent at a segment's start, so those keys stay as they were).
        var offsetInFirstSegment: Int64?
    }

    /// The SHA-256 (hex) of the recipe: the shard's content hash.
    public func recipeKey() throws -> String {
        switch task.kind {
        case .audio, .segmentAudio:
            guard audioNumbersAreBounded else { throw EngineError("shard spec: the audio task's frames are out of bounds") }
            // A segment's audio alone is the whole track of a one-segment timeline: same recipe, same bytes.
            let layout = audioLayout
            let kept = layout.keptLocalPackets
            // Two pieces inside one segment differ only in where they begin in it: that is
            // what their samples are, so it is in the key (else they were twins).
            let firstSegment = timeline.first.map { AudioPieces.sample(ofFrame: $0.outputStartFrame, frameDuration: output.frameDuration) } ?? 0
            let renderFrom = layout.renderFrom(firstSegment: firstSegment)
            return try Self.key(Audio(
                engine: engine, settings: settings,
                segments: timeline.map { segment in
                    let first = AudioPieces.sample(ofFrame: segment.outputStartFrame, frameDuration: output.frameDuration)
                    let end = AudioPieces.sample(ofFrame: segment.outputStartFrame + segment.frameCount, frameDuration: output.frameDuration)
                    return .init(source: segment.hasAudio ? files[segment.source] : nil, trimStart: segment.trimStart,
                                 trimDuration: segment.trimDuration, speed: segment.speed, samples: end - first)
                },
                silence: renderFrom - layout.encodeFrom, encoded: layout.encodeTo - layout.encodeFrom,
                keptFrom: kept.lowerBound, keptTo: layout.isLast ? nil : kept.upperBound,
                offsetInFirstSegment: layout.startsInside ? renderFrom - firstSegment : nil))
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
