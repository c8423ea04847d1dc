import Foundation
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
    /// cancelled shard stops within a frame). The pictures are made on a thread of their
    /// own while this one encodes (docs/rendering.md, "A shard on two cores"); the
    /// pictures and their order are those made one after another, so the chunk's bytes are.
    public func render(_ shard: ShardTask, of segment: SegmentTimeline, source: MediaInput, chain: FilterChain,
                       to chunkPath: String, progress: (Int) throws -> Void = { _ in }) throws -> Statistics {
        let media = source
        let source = try VideoSource(media, knownOrigin: segment.sourceOrigin)
        if shard.endFrame > shard.startFrame {
            source.limitReadAhead(through: segment.sourceTime(ofFrame: shard.endFrame - 1), of: media)
        }
        let maker = try PictureMaker(
            selector: try FrameSelector(source: source, startingAt: segment.sourceTime(ofFrame: shard.startFrame)),
            processor: try FrameProcessor(segment: segment, renderWidth: output.width, renderHeight: output.height, chain: chain),
            segment: segment, frames: shard.startFrame..<shard.endFrame, width: output.width, height: output.height)
        let writer = try VideoChunkWriter(path: chunkPath, width: output.width, height: output.height,
                                          frameDuration: output.frameDuration, settings: settings)
        let queue = PictureQueue(width: output.width, height: output.height)
        let made = DispatchSemaphore(value: 0)
        let thread = Thread {
            maker.run(into: queue)
            made.signal()
        }
        thread.name = "pictures"
        thread.stackSize = 8 << 20
        thread.start()
        var stats = Statistics()
        var lap = Stopwatch()
        do {
            while let picture = try queue.next() {
                _ = lap.lap()   // waiting for the picture is the maker's time
                try writer.append(zeroed: picture)
                queue.recycle(picture)
                stats.framesEncoded += 1
                stats.encodeSeconds += lap.lap()
                try progress(1)
            }
            _ = lap.lap()
            try writer.close()
            stats.encodeSeconds += lap.lap()
        } catch {
            queue.stop()
            made.wait()   // the maker's decoder and processor are not used past this call
            throw error
        }
        made.wait()
        stats.add(maker.statistics)
        return stats
    }
}

/// Decodes and processes a shard's frames into a `PictureQueue`, on the thread `render`
/// starts. `@unchecked Sendable`: its decoder, processor and picture are handed to that
/// thread and used only there until it ends; `statistics` is read after.
private final class PictureMaker: @unchecked Sendable {
    private let selector: FrameSelector
    private let processor: FrameProcessor
    private let segment: SegmentTimeline
    private let frames: Range<Int64>
    /// The last processed picture: a repeated source frame (slow motion) is already in it.
    private let picture: Frame
    private(set) var statistics = VideoShardRenderer.Statistics()

    init(selector: FrameSelector, processor: FrameProcessor, segment: SegmentTimeline, frames: Range<Int64>, width: Int, height: Int) throws {
        self.selector = selector
        self.processor = processor
        self.segment = segment
        self.frames = frames
        picture = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: width, height: height)
    }

    func run(into queue: PictureQueue) {
        do {
            var lap = Stopwatch()
            for k in frames {
                let (frame, isNew) = try selector.frame(at: segment.sourceTime(ofFrame: k))
                statistics.decodeSeconds += lap.lap()
                if isNew || k == frames.lowerBound {
                    try processor.process(frame, into: picture)
                    statistics.sourceFramesProcessed += 1
                }
                statistics.processSeconds += lap.lap()
                guard let blank = try queue.blank() else { return queue.end() }   // the encoder side stopped
                _ = lap.lap()
                try avCheck(av_frame_copy(blank.pointer, picture.pointer), "av_frame_copy")
                statistics.processSeconds += lap.lap()
                queue.put(blank)
            }
            queue.end()
        } catch {
            queue.end(failure: error)
        }
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
