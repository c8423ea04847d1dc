import CFFmpeg
import SessionKit

/// Renders one video shard — output frames `[start, end)` of one segment — into a chunk.
public struct VideoShardRenderer: Sendable {
    public let output: RenderFormat
    public let settings: EncoderSettings

    public init(output: RenderFormat, settings: EncoderSettings) {
        self.output = output
        self.settings = settings
    }

    public init(timeline: Timeline, settings: EncoderSettings) {
        self.init(output: RenderFormat(width: timeline.renderWidth, height: timeline.renderHeight,
                                       frameDuration: timeline.frameDuration, frames: timeline.totalFrames),
                  settings: settings)
    }

    /// Counts what the render did, for tests and statistics.
    public struct Statistics: Sendable {
        public var framesEncoded = 0
        public var sourceFramesProcessed = 0
    }

    /// `progress` is called after each encoded frame; it may throw to stop the render (a
    /// cancelled shard stops within a frame).
    public func render(_ shard: ShardTask, of segment: SegmentTimeline, source: MediaInput, chain: FilterChain,
                       to chunkPath: String, progress: (Int) throws -> Void = { _ in }) throws -> Statistics {
        let source = try VideoSource(source)
        let selector = try FrameSelector(source: source, startingAt: segment.sourceTime(ofFrame: shard.startFrame))
        let processor = try FrameProcessor(segment: segment, renderWidth: output.width,
                                           renderHeight: output.height, chain: chain)
        let picture = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: output.width, height: output.height)
        let writer = try VideoChunkWriter(path: chunkPath, width: output.width, height: output.height,
                                          frameDuration: output.frameDuration, settings: settings)
        var stats = Statistics()
        for k in shard.startFrame..<shard.endFrame {
            let (frame, isNew) = try selector.frame(at: segment.sourceTime(ofFrame: k))
            // A repeated source frame (slow motion) is already in `picture`.
            if isNew || k == shard.startFrame {
                try processor.process(frame, into: picture)
                stats.sourceFramesProcessed += 1
            }
            try writer.append(picture)
            stats.framesEncoded += 1
            try progress(1)
        }
        try writer.close()
        return stats
    }
}
