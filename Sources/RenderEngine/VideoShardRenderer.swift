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
    /// cancelled shard stops within a frame). `threads`: with `overlapped`, the pictures
    /// are made on a thread of their own while this one encodes, and the source decodes on
    /// `decode` frame threads (docs/rendering.md, "A shard's cores"); the pictures and
    /// their order are the same either way, so the chunk's bytes are.
    public func render(_ shard: ShardTask, of segment: SegmentTimeline, source: MediaInput, chain: FilterChain,
                       to chunkPath: String, threads: ShardThreads = .single, progress: (Int) throws -> Void = { _ in }) throws -> Statistics {
        let media = source
        let source = try VideoSource(media, knownOrigin: segment.sourceOrigin, threads: .frames(threads.decodeThreads(for: segment.naturalSize)))
        if shard.endFrame > shard.startFrame {
            source.limitReadAhead(through: segment.sourceTime(ofFrame: shard.endFrame - 1), of: media)
        }
        let maker = try PictureMaker(
            selector: try FrameSelector(source: source, startingAt: segment.sourceTime(ofFrame: shard.startFrame)),
            processor: try FrameProcessor(segment: segment, renderWidth: output.width, renderHeight: output.height, chain: chain),
            segment: segment, frames: shard.startFrame..<shard.endFrame, width: output.width, height: output.height)
        let writer = try VideoChunkWriter(path: chunkPath, width: output.width, height: output.height,
                                          frameDuration: output.frameDuration, settings: settings)
        var stats = threads.overlapped ? try encodeOverlapped(maker, into: writer, progress: progress)
                               : try encodeInTurn(maker, into: writer, progress: progress)
        stats.add(maker.statistics)
        return stats
    }

    /// Each picture made, then encoded, on this thread.
    private func encodeInTurn(_ maker: PictureMaker, into writer: VideoChunkWriter, progress: (Int) throws -> Void) throws -> Statistics {
        var frames = maker.frames.makeIterator()
        return try encode(into: writer, progress: progress, next: { try frames.next().map(maker.picture) },
                          append: { try writer.append($0) })
    }

    /// The pictures made on a thread of their own, at most `PictureQueue`'s depth ahead.
    private func encodeOverlapped(_ maker: PictureMaker, into writer: VideoChunkWriter, progress: (Int) throws -> Void) throws -> Statistics {
        let queue = PictureQueue(width: output.width, height: output.height)
        let made = DispatchSemaphore(value: 0)
        let thread = Thread {
            maker.run(into: queue)
            made.signal()
        }
        thread.name = "pictures"
        thread.stackSize = 8 << 20
        thread.start()
        defer {
            queue.stop()   // at the end or on an error: the maker stops at its next picture
            made.wait()    // its decoder and processor are not used past this call
        }
        return try encode(into: writer, progress: progress, next: queue.next) { picture in
            try writer.append(zeroed: picture)
            queue.recycle(picture)
        }
    }

    /// Encodes the pictures `next` gives until it gives nil, then closes the chunk. The
    /// time `next` takes is the picture maker's, not the encoder's.
    private func encode(into writer: VideoChunkWriter, progress: (Int) throws -> Void, next: () throws -> Frame?,
                        append: (Frame) throws -> Void) throws -> Statistics {
        var stats = Statistics()
        var lap = Stopwatch()
        while let picture = try next() {
            _ = lap.lap()
            try append(picture)
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

/// Decodes and processes a shard's frames, in turn on the shard's thread or into a
/// `PictureQueue` on a thread of its own. `@unchecked Sendable`: its decoder, processor and
/// picture are used by one thread at a time — handed to the picture thread and used only
/// there until it ends; `statistics` is read after.
private final class PictureMaker: @unchecked Sendable {
    private let selector: FrameSelector
    private let processor: FrameProcessor
    private let segment: SegmentTimeline
    let frames: Range<Int64>
    /// The last processed picture: a repeated source frame (slow motion) is already in it.
    private let picture: Frame
    private(set) var statistics = VideoShardRenderer.Statistics()
    private var lap = Stopwatch()

    init(selector: FrameSelector, processor: FrameProcessor, segment: SegmentTimeline, frames: Range<Int64>, width: Int, height: Int) throws {
        self.selector = selector
        self.processor = processor
        self.segment = segment
        self.frames = frames
        picture = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: width, height: height)
    }

    /// Output frame `k`'s picture (valid until the next call).
    func picture(_ k: Int64) throws -> Frame {
        _ = lap.lap()
        let (frame, isNew) = try selector.frame(at: segment.sourceTime(ofFrame: k))
        statistics.decodeSeconds += lap.lap()
        if isNew || k == frames.lowerBound {
            try processor.process(frame, into: picture)
            statistics.sourceFramesProcessed += 1
        }
        statistics.processSeconds += lap.lap()
        return picture
    }

    func run(into queue: PictureQueue) {
        do {
            for k in frames {
                let made = try picture(k)
                guard let blank = try queue.blank() else { return queue.end() }   // the encoder side stopped
                _ = lap.lap()
                try avCheck(av_frame_copy(blank.pointer, made.pointer), "av_frame_copy")
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
