import Foundation
import SessionKit

/// Renders one shard spec into a chunk: the one path of a farm worker and of a local
/// render (docs/rendering.md).
public enum ShardRenderer {
    /// `media`: each media reference the task reads → its input; `assets`: the loaded filter files. `progress` is called with 1 after each
    /// video frame, with 0 between blocks of audio, and may throw to stop. Returns what the
    /// render did (nothing counted for audio).
    /// `threads`: what a video shard may use besides its own thread (`ShardThreads`).
    public static func render(_ spec: ShardSpec, media: [String: MediaInput], assets: [String: FilterAssetFile],
                              to path: String, threads: ShardThreads = .single,
                              progress: (Int) throws -> Void = { _ in }) throws -> VideoShardRenderer.Statistics {
        try spec.check()
        LibavLog.quiet()
        switch spec.task.kind {
        case .audio, .segmentAudio:
            var files: [Int: MediaInput] = [:]
            for segment in spec.timeline where segment.hasAudio {
                guard let input = media[segment.source] else { throw EngineError("no input for '\(MediaURL.redact(segment.source))'") }
                files[segment.index] = input
            }
            try AudioTrackRenderer(segments: spec.timeline, frameDuration: spec.output.frameDuration,
                                   bitRate: spec.settings.effectiveAudioBitRate, layout: spec.audioLayout)
                .render(sources: files, to: path) { try progress(0) }
            return VideoShardRenderer.Statistics()
        case .video:
            guard let segment = spec.segment else { throw EngineError("shard spec: no segment \(spec.task.segment)") }
            guard let source = media[segment.source] else {
                throw EngineError("'\(MediaURL.redact(segment.source))' is not a local file; render it on a coordinator")
            }
            return try VideoShardRenderer(output: spec.output, settings: spec.settings)
                .render(spec.task, of: segment, source: source, chain: try spec.chain(assets: assets), to: path,
                        threads: threads, progress: progress)
        }
    }
}
