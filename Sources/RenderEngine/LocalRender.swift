import Foundation
import SessionKit
import Synchronization

/// Renders a validated video session on this machine: plan → shards on `workers`
/// parallel threads → chunks → assembled MP4 plus its adjustment sidecar.
public struct LocalRender: Sendable {
    public let loaded: LoadedSession
    public let settings: EncoderSettings
    public let workers: Int
    /// GOPs per shard (the planner's default 2); a huge value renders each segment as one
    /// chunk — the unchunked reference of the benchmarks.
    public var shardKeyframeIntervals: Int64 = 2
    /// `.segments`: `run(to:)` is given a directory and writes one file per segment.
    public var layout: Plan.Layout = .whole

    public init(loaded: LoadedSession, settings: EncoderSettings = EncoderSettings(), workers: Int) {
        self.loaded = loaded
        self.settings = settings
        self.workers = max(1, workers)
    }

    /// Frames encoded so far, and video shards finished (pieces of the sound are not
    /// counted: a progress line counts the picture's shards).
    public struct Progress: Sendable, Equatable {
        public var framesDone: Int
        public var totalFrames: Int
        public var videoShardsDone: Int
        public var videoShards: Int
        public var elapsed: Double

        public init(framesDone: Int, totalFrames: Int, videoShardsDone: Int, videoShards: Int, elapsed: Double) {
            self.framesDone = framesDone
            self.totalFrames = totalFrames
            self.videoShardsDone = videoShardsDone
            self.videoShards = videoShards
            self.elapsed = elapsed
        }
    }

    public struct Result: Sendable {
        public var frames: Int64
        public var shards: Int
        public var sourceFramesProcessed: Int
        /// Seconds on the video shards' threads by phase (decode, picture, encode), summed.
        public var phases: VideoShardRenderer.Statistics
        public var seconds: Double
        public var sidecarPath: String
        public var assemblySeconds: Double
    }

    /// Writes `output` and its sidecar, or nothing (a failed render leaves no file behind).
    public func run(to output: String, progress: @escaping @Sendable (Progress) -> Void = { _ in }) throws -> Result {
        let started = Date()
        var contentIDs: [String: String] = [:]
        for (reference, url) in loaded.files { contentIDs[reference] = try ContentID.of(file: url.path) }
        for (reference, object) in loaded.origins { contentIDs[reference] = object.contentID }
        let spec = try JobSpec.compile(loaded, settings: settings, contentIDs: contentIDs, layout: layout,
                                       shardKeyframeIntervals: shardKeyframeIntervals)
        let files = loaded.files.mapValues { MediaInput.file($0.path) }
        let origins = loaded.originClient
        // A URL's reader follows one demuxer (its read-ahead is the task's): one per task.
        let media = { @Sendable (task: ShardSpec) -> [String: MediaInput] in
            files.merging(origins.map { task.originInputs(client: $0) } ?? [:]) { $1 }
        }
        let assets = loaded.assets
        let workDirectory = try makeWorkDirectory(near: output)
        defer { try? FileManager.default.removeItem(at: workDirectory) }
        let chunkPath = { @Sendable (task: Int) in Self.chunkPath(task, of: spec, in: workDirectory) }

        let board = JobBoard(tasks: spec.tasks)
        let threads = min(workers, spec.tasks.count)
        let shardThreads = ShardThreads.sharing(cores: ProcessInfo.processInfo.activeProcessorCount, among: threads)
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                while let index = board.take() {
                    do {
                        let task = spec.shard(index)
                        let processed = try ShardRenderer.render(task, media: media(task), assets: assets, to: chunkPath(index),
                                                                 threads: shardThreads) { board.add(frames: $0) }
                        board.finish(index, processed)
                    } catch {
                        board.fail(error)
                    }
                }
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        let total = Int(spec.output.frames)
        while group.wait(timeout: .now() + 0.25) == .timedOut {
            progress(board.progress(totalFrames: total, elapsed: Date().timeIntervalSince(started)))
        }
        if let error = board.firstError { throw error }
        progress(board.progress(totalFrames: total, elapsed: Date().timeIntervalSince(started)))

        let assemblyStarted = Date()
        try spec.assemble(to: output, chunkPath: chunkPath)
        let assemblySeconds = Date().timeIntervalSince(assemblyStarted)
        let sidecarPath = layout == .whole ? Sidecar.path(for: output) : output
        return Result(frames: spec.output.frames, shards: spec.tasks.count, sourceFramesProcessed: board.totals.sourceFramesProcessed, phases: board.totals,
                      seconds: Date().timeIntervalSince(started), sidecarPath: sidecarPath, assemblySeconds: assemblySeconds)
    }

    /// Where task `index`'s chunk goes in a work directory.
    static func chunkPath(_ index: Int, of spec: JobSpec, in directory: URL) -> String {
        directory.appendingPathComponent(String(format: "task-%06d.", index) + (spec.tasks[index].kind == .video ? "mp4" : "m4a")).path
    }

    private func makeWorkDirectory(near output: String) throws -> URL {
        let parent = URL(fileURLWithPath: output).deletingLastPathComponent()
        let dir = parent.appendingPathComponent(".reel-work-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
        } catch {
            throw EngineError("cannot create a work directory in \(parent.path): \((error as NSError).localizedDescription)")
        }
        return dir
    }
}

/// Hands out task indices to worker threads and collects their results.
final class JobBoard: Sendable {
    private struct State {
        var next = 0
        var videoDone = 0
        var frames = 0
        var totals = VideoShardRenderer.Statistics()
        var error: (any Error)?
    }

    private let count: Int
    private let isVideo: [Bool]
    private let videoCount: Int
    private let state = Mutex(State())

    init(tasks: [ShardTask]) {
        count = tasks.count
        isVideo = tasks.map { $0.kind == .video }
        videoCount = isVideo.count { $0 }
    }

    /// The next task, or `nil` when all are taken or one has failed.
    func take() -> Int? {
        state.withLock { s in
            guard s.error == nil, s.next < count else { return nil }
            defer { s.next += 1 }
            return s.next
        }
    }

    func add(frames: Int) { state.withLock { $0.frames += frames } }
    func finish(_ index: Int, _ shard: VideoShardRenderer.Statistics) {
        state.withLock { s in
            if isVideo[index] { s.videoDone += 1 }
            s.totals.add(shard)
        }
    }
    func fail(_ error: any Error) { state.withLock { if $0.error == nil { $0.error = error } } }

    var firstError: (any Error)? { state.withLock { $0.error } }
    var totals: VideoShardRenderer.Statistics { state.withLock { $0.totals } }

    func progress(totalFrames: Int, elapsed: Double) -> LocalRender.Progress {
        state.withLock { s in
            LocalRender.Progress(framesDone: s.frames, totalFrames: totalFrames, videoShardsDone: s.videoDone, videoShards: videoCount,
                                 elapsed: elapsed)
        }
    }
}

/// A render stopped because its work was cancelled.
public struct RenderCancelled: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "cancelled" }
}
