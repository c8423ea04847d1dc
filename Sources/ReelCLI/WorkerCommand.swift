import ArgumentParser
import Farm
import FarmHTTP
import ServiceLifecycle
import Foundation
import RenderEngine
import SessionKit

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "worker",
        abstract: "Run a worker: render shards for a coordinator.")

    @Option(help: "Coordinator endpoint to connect to (HOST:PORT is read as tcp://); repeat it for coordinators that stand by for each other: the worker works for whichever leads.",
            transform: parseEndpoint)
    var connect: [String]

    @Option(help: "Shards rendered at once (default: the number of cores).")
    var slots: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .customLong("decode-threads"), help: "Frame threads decoding each shard's source (default: one more than the slot's share of the cores when the share is 2 or more, else 1; at most \(ShardThreads.maximumDecodeThreads)). Any value gives the same bytes.")
    var decodeThreads: Int?

    @Option(name: .customLong("drain-seconds"), help: "On SIGTERM/SIGINT: how long running shards may finish before they are handed back.")
    var drainSeconds: Double = 30

    @Option(name: .customLong("parent-pid"), help: .hidden)
    var parentPID: Int32?

    @Option(name: .customLong("cache-dir"), help: "Media cache directory.")
    var cacheDir: String = FileManager.default.temporaryDirectory.appendingPathComponent("reel-worker-cache").path

    @Option(name: .customLong("cache-size"), help: "Media cache limit in MiB.")
    var cacheSize: Int = 10240

    @Option(name: .customLong("thumbnail-cache-size"), help: "Thumbnail and frame cache limit in MiB (in CACHE-DIR/stills).")
    var thumbnailCacheSize: Int = 1024

    @Option(name: .customLong("media-root"), help: "Directory this worker may read media from in place (repeatable).")
    var mediaRoots: [String] = []

    @Option(name: .customLong("pool"), help: "A pool this worker serves (repeatable): jobs submitted with --pool NAME render only on its workers.")
    var pools: [String] = []

    @OptionGroup var keys: CurveClientOptions

    @OptionGroup var urls: URLOptions

    @Flag(help: "Log nothing.")
    var quiet = false

    @OptionGroup var operations: OperationsOptions

    @Flag(help: .hidden) var testCorruptChunks = false
    @Flag(help: .hidden) var testFailAlways = false
    @Option(help: .hidden) var testRenderLog: String?
    @Option(help: .hidden) var testShardDelay: Int = 0
    @Option(help: .hidden) var testStartDelay: Int = 0

    func validate() throws {
        for pool in pools { if let problem = PoolName.problem(pool) { throw ValidationError("--pool: \(problem)") } }
        if let decodeThreads, !(1...64).contains(decodeThreads) {
            throw ValidationError("--decode-threads \(decodeThreads) is outside 1 … 64")
        }
        if pools.count > 16 { throw ValidationError("--pool: at most 16 pools, \(pools.count) given") }
    }

    func run() async throws {
        if testStartDelay > 0 { try await Task.sleep(for: .milliseconds(testStartDelay)) }   // a slow start, for tests
        HeapPolicy.shareHeaps(max(1, slots) + 1)
        var options = Worker.Options(endpoint: connect[0], slots: max(1, slots), cacheDirectory: URL(fileURLWithPath: cacheDir))
        options.standbys = Array(connect.dropFirst())
        options.decodeThreads = decodeThreads ?? 0
        options.cacheLimit = Int64(max(1, cacheSize)) << 20
        options.stillCacheLimit = Int64(max(1, thumbnailCacheSize)) << 20
        options.mediaRoots = mediaRoots.map { URL(fileURLWithPath: $0) }
        options.pools = Array(Set(pools)).sorted()
        options.corruptChunks = testCorruptChunks
        options.failAlways = testFailAlways
        options.renderLog = testRenderLog
        options.shardDelayMillis = max(0, testShardDelay)
        options.parentPID = parentPID
        options.drainSeconds = max(0, drainSeconds)
        options.curve = try keys.curve()
        options.origins = urls.client
        let logger = operations.logger("reel.worker", quiet: quiet)
        // SIGTERM/SIGINT: drain (no new work; finish or hand back), then exit 0. Past the
        // drain (and a margin to hand back), or on SIGQUIT, it leaves at once.
        try await farmCall {
            try await operations.run(LoopService.worker(options: options, logger: logger), role: .worker, pulse: options.pulse,
                                     gracePeriod: .seconds(options.drainSeconds + 5), logger: logger)
        }
    }
}
