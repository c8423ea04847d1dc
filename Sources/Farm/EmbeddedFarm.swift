import Foundation
import Logging
import RenderEngine
import SessionKit
import Synchronization

/// `reel render`'s default (docs/rendering.md): a coordinator in this process on a private
/// endpoint plus `workers` local workers — the farm's real path, on one machine. The first
/// worker runs on a thread of this process, so the first shard starts as soon as the job
/// exists; the others are `reel worker` processes, which take 0.3–1 s to start and join
/// (docs/benchmarks.md, "Starting a render"), started only for a job of more than one
/// video shard. The plan never depends on how many joined, so the bytes are the same
/// whichever worker renders what.
public struct EmbeddedFarm: Sendable {
    public let executable: String
    public let workers: Int
    public var logger = Logger(label: "reel.render", factory: { _ in SwiftLogNoOpLogHandler() })
    /// `reel render --trace FILE`: the embedded coordinator's jobs and attempts as JSON lines.
    public var tracePath: String?

    public init(executable: String, workers: Int) {
        self.executable = executable
        self.workers = max(1, workers)
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        /// True when the coordinator refused the session as invalid.
        public var invalid: Bool
    }

    /// When each step of a render was reached, in seconds since the process started
    /// (docs/benchmarks.md, "Starting a render"): the farm up (its coordinator and own
    /// worker), the job created (probed and planned), a shard first seen rendering and the
    /// first chunk stored (as the progress the client follows shows them, at most 0.2 s
    /// late), the job done, and the output fetched.
    public struct Startup: Codable, Sendable {
        public var farmUp = 0.0
        public var jobCreated = 0.0
        public var firstShardRendering: Double?
        public var firstChunkStored: Double?
        public var done = 0.0
        public var fetched = 0.0
        /// `reel worker` processes started: none for a job of one video shard.
        public var workerProcesses = 0
        /// Workers on threads of the process: a second one for a job of one video shard and
        /// its sound.
        public var workerThreads = 1
    }

    /// Renders through a private farm; returns the job's final status, the seconds taken,
    /// and when each step was reached.
    @discardableResult
    public func render(_ loaded: LoadedSession, settings: EncoderSettings, layout: Plan.Layout = .whole, to output: String,
                       progress: @escaping (JobStatus, Double) -> Void) throws -> (status: JobStatus, seconds: Double, startup: Startup) {
        let begin = Date()
        let started = begin.addingTimeInterval(-ProcessAge.seconds)
        func now() -> Double { Date().timeIntervalSince(started) }
        var startup = Startup()
        // Hashed and probed once: the farm's compile finds both (docs/benchmarks.md, "Starting a render").
        let known = try KnownMedium.of(loaded)
        return try run(media: Array(loaded.files.values), origins: loaded.originClient, known: Array(known.values)) { client, local in
            startup.farmUp = now()
            let (jobID, shards): (String, Int)
            switch try client.submit(loaded, settings: settings, priority: 0, layout: layout, contentIDs: known.mapValues(\.contentID)) {
            case .submitted(let id, _, let count): (jobID, shards) = (id, count)
            case .invalid(let problems): throw Failure(description: problems.map(\.description).joined(separator: "\n"), invalid: true)
            }
            startup.jobCreated = now()
            // One video shard and its sound take no worker process: one would only take CPU
            // from this one while it starts. A second thread renders the sound beside the
            // video instead (docs/benchmarks.md, "Starting a render").
            if shards > 2 {
                try local.processes.start()
            } else if shards == 2, workers > 1 {
                local.threads.start()
            }
            startup.workerProcesses = local.processes.count
            startup.workerThreads = local.threads.count
            let status = try client.watch(jobID) { status in
                if startup.firstShardRendering == nil, status.shards.running + status.shards.done > 0 { startup.firstShardRendering = now() }
                if startup.firstChunkStored == nil, status.shards.done > 0 { startup.firstChunkStored = now() }
                progress(status, Date().timeIntervalSince(begin))
            }
            startup.done = now()
            guard status.state == .done else {
                throw Failure(description: "job \(status.state): \(status.error?.message ?? "no detail")", invalid: false)
            }
            try client.fetch(jobID, to: output)
            startup.fetched = now()
            return (status, Date().timeIntervalSince(begin), startup)
        }
    }

    /// Starts a private farm whose workers read `media`'s directories and `origins`' hosts,
    /// runs `body` with a client of it, and stops it.
    public func run<T>(media: [URL], origins: OriginClient?, _ body: (FarmClient) throws -> T) throws -> T {
        try run(media: media, origins: origins) { client, workers in
            try workers.processes.start()
            return try body(client)
        }
    }

    /// As `run`, but the worker processes start when `body` asks (`WorkerProcesses.start`),
    /// and `body` may start more worker threads. `known`: files already hashed and probed
    /// here (`Coordinator.Options.knownMedia`).
    func run<T>(media: [URL], origins: OriginClient?, known: [KnownMedium] = [],
                _ body: (FarmClient, LocalWorkers) throws -> T) throws -> T {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("reel-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        let processes = WorkerProcesses()
        // Interrupted or terminated: stop the workers, remove the scratch directory, leave.
        let interruption = Self.onSignal {
            processes.killNow()
            try? FileManager.default.removeItem(at: state)
        }
        defer { for source in interruption { source.cancel() } }
        let endpoint = "ipc://\(state.path)/coordinator.ipc"
        let roots = Array(Set(media.map { $0.deletingLastPathComponent() }))
        var options = Coordinator.Options(endpoint: endpoint, stateDirectory: state.appendingPathComponent("state"))
        options.mediaRoots = roots
        options.tracePath = tracePath
        options.knownMedia = known
        // No backup copies: every worker here shares this machine's cores, so a copy takes
        // them from the shard it copies (a 4K shard beside its copy took 12.1 s, alone 8.6;
        // docs/operations.md, "A farm by hand"). A worker that dies is still replaced.
        options.backupAfterSeconds = nil
        let origins = origins ?? OriginClient(policy: URLPolicy())
        options.origins = origins
        let stop = options.stop
        let coordinatorOptions = options
        let finished = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let startError = Mutex<String?>(nil)
        let logger = self.logger
        let coordinatorThread = Thread {
            defer { finished.signal() }
            do {
                let coordinator = try Coordinator(options: coordinatorOptions, logger: logger)
                started.signal()
                try coordinator.run()
            } catch {
                startError.withLock { $0 = "\(error)" }
                started.signal()
            }
        }
        coordinatorThread.start()
        started.wait()
        defer {
            stop.raise()
            finished.wait()
        }
        if let error = startError.withLock({ $0 }) { throw Failure(description: "coordinator: \(error)", invalid: false) }
        // The first worker, in this process: it says hello before any process has started.
        let threads = WorkerThreads(endpoint: endpoint, roots: roots, origins: origins, state: state, logger: logger)
        threads.start()
        defer { threads.stop() }
        defer { processes.stop() }
        var arguments = ["worker", "--connect", endpoint, "--slots", "1", "--quiet", "--parent-pid", String(getpid())]
            + roots.flatMap { ["--media-root", $0.path] }
            + origins.policy.allowedHosts.flatMap { ["--allow-url-host", $0] }
            + ["--url-timeout", String(origins.limits.stallTimeout)]
        // Tests: the processes join late (EmbeddedFarmStartTests).
        if let delay = ProcessInfo.processInfo.environment["REEL_TEST_WORKER_START_DELAY_MS"].flatMap(Int.init) {
            arguments += ["--test-start-delay", String(delay)]
        }
        processes.plan(executable: executable, count: workers - 1) { index in
            arguments + ["--cache-dir", state.appendingPathComponent("cache-\(index)").path]
        }
        return try body(try FarmClient(endpoint: endpoint), LocalWorkers(processes: processes, threads: threads))
    }

    /// The workers a render may add once its job is planned: the `reel worker` processes
    /// (planned, not started), and more threads of this process.
    struct LocalWorkers {
        let processes: WorkerProcesses
        let threads: WorkerThreads
    }

    /// Handles SIGINT and SIGTERM by running `cleanUp` and exiting with 128 + the signal.
    private static func onSignal(_ cleanUp: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                cleanUp()
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    /// This process's environment without what points a worker at another farm: keys
    /// and a coordinator set for `reel submit` would have the private farm's workers
    /// attempt a CURVE handshake its coordinator never answers, and wait forever.
    static var workerEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter { !["REEL_COORDINATOR", "REEL_CURVE_KEY", "REEL_SERVER_KEY"].contains($0.key) }
    }

    /// This program, for spawning workers.
    public static var currentExecutable: String { RunningExecutable.path }
}

/// How long this process has run: now less its start time in `/proc/self/stat` (field 22,
/// clock ticks since boot) against `/proc/uptime`; 0 where there is no `/proc`.
enum ProcessAge {
    static var seconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let uptime = (try? String(contentsOfFile: "/proc/uptime", encoding: .utf8))?.split(separator: " ").first.flatMap({ Double($0) }),
              let close = stat.lastIndex(of: ")") else { return 0 }
        // Fields after the command name (which may hold spaces): state is field 3, starttime 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return 0 }
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        return max(0, uptime - ticks / max(1, perSecond))
    }
}
