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

    public init(loaded: LoadedSession, settings: EncoderSettings = EncoderSettings(), workers: Int) {
        self.loaded = loaded
        self.settings = settings
        self.workers = max(1, workers)
    }

    public struct Progress: Sendable {
        public var framesDone: Int
        public var totalFrames: Int
        public var shardsDone: Int
        public var shardCount: Int
        public var elapsed: Double

        public init(framesDone: Int, totalFrames: Int, shardsDone: Int, shardCount: Int, elapsed: Double) {
            self.framesDone = framesDone
            self.totalFrames = totalFrames
            self.shardsDone = shardsDone
            self.shardCount = shardCount
            self.elapsed = elapsed
        }
    }

    public struct Result: Sendable {
        public var frames: Int64
        public var shards: Int
        public var sourceFramesProcessed: Int
        public var seconds: Double
        public var sidecarPath: String
        public var assemblySeconds: Double
    }

    /// Writes `output` and its sidecar, or nothing (a failed render leaves no file behind).
    public func run(to output: String, progress: @escaping @Sendable (Progress) -> Void = { _ in }) throws -> Result {
        let started = Date()
        let timeline = try loaded.timeline()
        let plan = Plan(timeline: timeline, keyframeIntervalSeconds: settings.keyframeInterval,
                        shardKeyframeIntervals: shardKeyframeIntervals)
        let job = try RenderJob(loaded: loaded, timeline: timeline, plan: plan, settings: settings)
        let workDirectory = try makeWorkDirectory(near: output)
        defer { try? FileManager.default.removeItem(at: workDirectory) }

        let board = JobBoard(count: job.tasks.count)
        let threads = min(workers, job.tasks.count)
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                while let index = board.take() {
                    do {
                        let processed = try job.run(task: index, in: workDirectory) { board.add(frames: $0) }
                        board.finish(sourceFrames: processed)
                    } catch {
                        board.fail(error)
                    }
                }
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        let total = Int(timeline.totalFrames)
        while group.wait(timeout: .now() + 0.25) == .timedOut {
            progress(board.progress(totalFrames: total, elapsed: Date().timeIntervalSince(started)))
        }
        if let error = board.firstError { throw error }
        progress(board.progress(totalFrames: total, elapsed: Date().timeIntervalSince(started)))

        let sidecar = try job.sidecar()
        let assembler = Assembler(frameDuration: timeline.frameDuration, creationDate: loaded.session.dateCreated,
                                  location: timeline.segments.lazy.compactMap(\.location).first ?? loaded.session.location)
        let assemblyStarted = Date()
        try assembler.assemble(video: job.chunks(in: workDirectory), audio: job.audioChunk(in: workDirectory), to: output)
        let assemblySeconds = Date().timeIntervalSince(assemblyStarted)
        let sidecarPath = Sidecar.path(for: output)
        do {
            try sidecar.encoded().write(to: URL(fileURLWithPath: sidecarPath), options: .atomic)
        } catch {
            unlink(output)
            throw EngineError("cannot write the sidecar \(sidecarPath): \((error as NSError).localizedDescription)")
        }
        return Result(frames: timeline.totalFrames, shards: job.tasks.count, sourceFramesProcessed: board.sourceFrames,
                      seconds: Date().timeIntervalSince(started), sidecarPath: sidecarPath, assemblySeconds: assemblySeconds)
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

/// One unit of work of a render: the audio track or a video shard.
public enum RenderTask: Sendable, Hashable {
    case audio
    case video(Plan.VideoShard)
}

extension LocalRender {
    /// Renders one task of a job into `path` (a farm worker's entry point); returns the
    /// number of source frames processed.
    /// `stop` is asked after every frame of a video shard; when it answers true the render
    /// ends with `RenderCancelled`.
    /// `remote`: sources read by ranges (reference → reader) instead of from `loaded.files`.
    public static func renderShard(loaded: LoadedSession, settings: EncoderSettings, task: RenderTask, to path: String,
                                   remote: [String: any RangeReadable] = [:], stop: () -> Bool = { false }) throws -> Int {
        let timeline = try loaded.timeline()
        let job = try RenderJob(loaded: loaded, timeline: timeline,
                                plan: Plan(timeline: timeline, keyframeIntervalSeconds: settings.keyframeInterval), settings: settings,
                                remote: remote)
        return try job.run(task, to: path) { _ in if stop() { throw RenderCancelled() } }
    }
}

/// Everything the shards of one render need, resolved once and shared by the threads.
struct RenderJob: Sendable {
    typealias Task = RenderTask

    let loaded: LoadedSession
    let timeline: Timeline
    let plan: Plan
    let settings: EncoderSettings
    let chains: [FilterChain]
    /// Each segment's source: a file, ranges of a remote file, or `nil` for media known
    /// here only by its probe (a farm worker reads only its own task's).
    let sources: [MediaInput?]
    /// The audio track first: it is one long task, best started early.
    let tasks: [Task]

    init(loaded: LoadedSession, timeline: Timeline, plan: Plan, settings: EncoderSettings,
         remote: [String: any RangeReadable] = [:]) throws {
        self.loaded = loaded
        self.timeline = timeline
        self.plan = plan
        self.settings = settings
        chains = try timeline.segments.map { segment in
            try loaded.chain(segment.filters)
        }
        sources = timeline.segments.map { segment in
            if let path = loaded.files[segment.source]?.path { return .file(path) }
            return remote[segment.source].map { .ranges($0, name: segment.source) }
        }
        tasks = [.audio] + plan.videoShards.map { .video($0) }
    }

    /// Runs task `index`; returns how many source frames it processed.
    func run(task index: Int, in directory: URL, progress: (Int) -> Void) throws -> Int {
        let task = tasks[index]
        switch task {
        case .audio: return try run(task, to: audioChunk(in: directory), progress: progress)
        case .video(let shard): return try run(task, to: chunkPath(shard, in: directory), progress: progress)
        }
    }

    func run(_ task: Task, to path: String, progress: (Int) throws -> Void) throws -> Int {
        switch task {
        case .audio:
            var sources: [Int: String] = [:]
            for segment in timeline.segments where segment.hasAudio { sources[segment.index] = try sourcePath(segment.index) }
            try AudioTrackRenderer(timeline: timeline).render(sources: sources, to: path)
            return 0
        case .video(let shard):
            let renderer = VideoShardRenderer(timeline: timeline, settings: settings)
            let stats = try renderer.render(shard, source: try source(shard.segment), chain: chains[shard.segment],
                                            to: path, progress: progress)
            return stats.sourceFramesProcessed
        }
    }

    private func source(_ segment: Int) throws -> MediaInput {
        guard let source = sources[segment] else {
            throw EngineError("'\(timeline.segments[segment].source)' is not a local file; render it on a coordinator")
        }
        return source
    }

    /// The audio renderer reads files only.
    private func sourcePath(_ segment: Int) throws -> String {
        guard case .file(let path) = try source(segment) else {
            throw EngineError("'\(timeline.segments[segment].source)' is not a local file")
        }
        return path
    }

    func chunkPath(_ shard: Plan.VideoShard, in directory: URL) -> String {
        directory.appendingPathComponent(String(format: "video-%06d.mp4", shard.index)).path
    }

    func audioChunk(in directory: URL) -> String {
        directory.appendingPathComponent("audio.m4a").path
    }

    func chunks(in directory: URL) -> [Assembler.VideoChunk] {
        plan.videoShards.map {
            Assembler.VideoChunk(path: chunkPath($0, in: directory), outputStartFrame: $0.outputStartFrame, frameCount: $0.frameCount)
        }
    }

    func sidecar() throws -> Sidecar {
        var sources: [String: String] = [:]
        for (reference, url) in loaded.files { sources[reference] = try ContentID.of(file: url.path) }
        return Sidecar(formatIdentifier: loaded.session.formatIdentifier, formatVersion: loaded.session.formatVersion,
                       engineVersion: EngineVersion.engine, encoder: settings, sources: sources,
                       output: .init(width: timeline.renderWidth, height: timeline.renderHeight,
                                     frameDuration: SessionTime(timeline.frameDuration), frames: timeline.totalFrames),
                       session: loaded.session)
    }
}

/// Hands out task indices to worker threads and collects their results.
final class JobBoard: Sendable {
    private struct State {
        var next = 0
        var done = 0
        var frames = 0
        var sourceFrames = 0
        var error: (any Error)?
    }

    private let count: Int
    private let state = Mutex(State())

    init(count: Int) { self.count = count }

    /// The next task, or `nil` when all are taken or one has failed.
    func take() -> Int? {
        state.withLock { s in
            guard s.error == nil, s.next < count else { return nil }
            defer { s.next += 1 }
            return s.next
        }
    }

    func add(frames: Int) { state.withLock { $0.frames += frames } }
    func finish(sourceFrames: Int) { state.withLock { $0.done += 1; $0.sourceFrames += sourceFrames } }
    func fail(_ error: any Error) { state.withLock { if $0.error == nil { $0.error = error } } }

    var firstError: (any Error)? { state.withLock { $0.error } }
    var sourceFrames: Int { state.withLock { $0.sourceFrames } }

    func progress(totalFrames: Int, elapsed: Double) -> LocalRender.Progress {
        state.withLock { s in
            LocalRender.Progress(framesDone: s.frames, totalFrames: totalFrames, shardsDone: s.done, shardCount: count, elapsed: elapsed)
        }
    }
}

/// A render stopped because its work was cancelled.
public struct RenderCancelled: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "cancelled" }
}
