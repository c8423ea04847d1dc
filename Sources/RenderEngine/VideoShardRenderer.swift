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

    /// Counts what the render did, for tests and the worker's metrics: frames, and seconds
    /// spent reading and decoding the source, on the picture (orient, crop, scale,
    /// filters) and encoding.
    public struct Statistics: Sendable {
        public var framesEncoded = 0
        public var sourceFramesProcessed = 0
        public var decodeSeconds = 0.0
        public var processSeconds = 0.0
        public var encodeSeconds = 0.0

        public init() {}

        mutating func add(_ other: Statistics) {
            framesEncoded += other.framesEncoded
            sourceFramesProcessed += other.sourceFramesProcessed
            decodeSeconds += other.decodeSeconds
            processSeconds += other.processSeconds
            encodeSeconds += other.encodeSeconds
        }
    }

    /// `progress` is called after each encoded frame; it may throw to stop the render (a
    /// cancelled shard stops within a frame).
    public func render(_ shard: ShardTask, of segment: SegmentTimeline, source: MediaInput, chain: FilterChain,
                       to chunkPath: String, progress: (Int) throws -> Void = { _ in }) throws -> Statistics {
        let media = source
        let source = try VideoSource(media, knownOrigin: segment.sourceOrigin)
        if shard.endFrame > shard.startFrame {
            source.limitReadAhead(through: segment.sourceTime(ofFrame: shard.endFrame - 1), of: media)
        }
        let selector = try FrameSelector(source: source, startingAt: segment.sourceTime(ofFrame: shard.startFrame))
        let processor = try FrameProcessor(segment: segment, renderWidth: output.width,
                                           renderHeight: output.height, chain: chain)
        let picture = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: output.width, height: output.height)
        let writer = try VideoChunkWriter(path: chunkPath, width: output.width, height: output.height,
                                          frameDuration: output.frameDuration, settings: settings)
        var stats = Statistics()
        var lap = Stopwatch()
        for k in shard.startFrame..<shard.endFrame {
            let (frame, isNew) = try selector.frame(at: segment.sourceTime(ofFrame: k))
            stats.decodeSeconds += lap.lap()
            // A repeated source frame (slow motion) is already in `picture`.
            if isNew || k == shard.startFrame {
                try processor.process(frame, into: picture)
                stats.sourceFramesProcessed += 1
            }
            stats.processSeconds += lap.lap()
            try writer.append(picture)
            stats.framesEncoded += 1
            stats.encodeSeconds += lap.lap()
            try progress(1)
            _ = lap.lap()
        }
        try writer.close()
        stats.encodeSeconds += lap.lap()
        return stats
    }
}

/// Seconds between laps on the monotonic clock.
struct Stopwatch {
    private var last = ContinuousClock.now

    mutating func lap() -> Double {
        let now = ContinuousClock.now
        defer { last = now }
        let elapsed = (now - last).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }
}
