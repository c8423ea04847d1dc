import ArgumentParser
import Farm
import FarmHTTP
import ServiceLifecycle
import Foundation
import RenderEngine
import SessionKit

/// `--coordinator URL`, else `REEL_COORDINATOR`, else the local default.
struct CoordinatorOption: ParsableArguments {
    @Option(help: "Coordinator endpoint (default: $REEL_COORDINATOR or tcp://127.0.0.1:7700).")
    var coordinator: String?

    @OptionGroup var keys: CurveClientOptions

    var endpoint: String {
        coordinator ?? ProcessInfo.processInfo.environment["REEL_COORDINATOR"] ?? "tcp://127.0.0.1:7700"
    }

    func client() throws -> FarmClient {
        let curve = try keys.curve()
        do {
            return try FarmClient(endpoint: endpoint, curve: curve)
        } catch {
            printError("error: cannot reach \(endpoint): \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        }
    }
}

/// Runs a client call; its failure is one line, and exit 2 when the request itself was
/// wrong (by the farm's error code), 1 otherwise.
func farmCall<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw reported(error)
    }
}

func farmCall<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw reported(error)
    }
}

private func reported(_ error: any Error) -> Reported {
    if let reported = error as? Reported { return reported }
    printError("error: \(error)")
    switch (error as? FarmError)?.code {
    case .invalidInput, .noSuchJob, .notOwner, .alreadyEnded, .notEnded, .resultGone: return Reported(code: ExitStatus.invalidInput)
    default: return Reported(code: ExitStatus.failure)
    }
}

/// Follows a job to its end; one that did not finish is one error line and exit 1.
func followToDone(_ client: FarmClient, _ job: String, showProgress: Bool) throws {
    let printer = ProgressPrinter()
    let final = try farmCall { try client.watch(job) { if showProgress { printer.update($0) } } }
    if showProgress { printer.finish() }
    guard final.state == .done else {
        printError("error: job \(job) \(final.state.rawValue): \(final.error ?? "")")
        throw Reported(code: ExitStatus.failure)
    }
}

struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coordinator",
        abstract: "Run a coordinator: job store, scheduler and assembler for a farm of workers.")

    @Option(help: "ZeroMQ endpoint to bind, e.g. tcp://0.0.0.0:7700.")
    var bind: String = "tcp://127.0.0.1:7700"

    @Option(name: .customLong("state-dir"), help: "Directory for the job store, chunks, media and results.")
    var stateDir: String

    @Option(name: .customLong("media-root"), help: "Directory whose files clients may submit by path (repeatable).")
    var mediaRoots: [String] = []

    @Option(name: .customLong("curve-key"), help: "The coordinator's key file from `reel keygen`: encrypt and authenticate with CURVE.")
    var curveKey: String?

    @Option(name: .customLong("authorized-keys"), help: "File of the public keys allowed to connect, one per line with its role (worker, client or admin), with --curve-key.")
    var authorizedKeys: String?

    @Flag(help: "Allow binding a non-loopback address without CURVE keys.")
    var insecure = false

    @Option(name: .customLong("looks"), help: ArgumentHelp(
        "The farm's looks directory: its looks and custom filters replace those a client sends.", valueName: "dir"))
    var looks: String?

    @Flag(name: .customLong("strict-looks"), help: "Refuse jobs that use ReelFarm's stand-in images for the SDK's named looks.")
    var strictLooks = false

    @Option(name: .customLong("chunk-cache-size"), help: ArgumentHelp(
        "MiB of finished chunks kept for reuse: a session submitted again after an edit re-renders only the shards the edit changed (0: off).",
        valueName: "MiB"))
    var chunkCacheSize: Int = 1024

    @Option(name: .customLong("keep-results"), help: ArgumentHelp(
        "How long a finished job's result, and an upload no job reads, are kept: 90s, 30m, 24h or 7d.", valueName: "duration"))
    var keepResults: String = "24h"

    @Option(name: .customLong("keep-jobs"), help: ArgumentHelp(
        "How long an ended job's status and history are kept (at least --keep-results): 90s, 30m, 24h or 7d.", valueName: "duration"))
    var keepJobs: String = "30d"

    @Option(name: .customLong("min-free-space"), help: ArgumentHelp(
        "MiB kept free in the state directory: below it no shards are handed out, and a job is accepted only if its budget fits above it.",
        valueName: "MiB"))
    var minFreeSpace: Int = 64

    @OptionGroup var operations: OperationsOptions

    @Option(help: ArgumentHelp("Serve the HTTP API (docs/api.md) at http://ADDR/v1, e.g. 127.0.0.1:8080.", valueName: "ADDR"))
    var http: String?

    @Option(name: .customLong("api-tokens"), help: ArgumentHelp(
        "File of the API's bearer tokens, one per line with its role (client or admin); needed to serve it beyond loopback.",
        valueName: "file"))
    var apiTokens: String?

    @Option(name: .customLong("webhook-secret"), help: ArgumentHelp(
        "File holding the secret that signs webhooks (HMAC-SHA256); with it, jobs may name a callback URL.", valueName: "file"))
    var webhookSecret: String?

    func validate() throws {
        if let http {
            guard let address = HTTPAddress(http) else {
                throw ValidationError("--http '\(http)' is not HOST:PORT (e.g. 127.0.0.1:8080 or :8080)")
            }
            if !address.isLoopback && apiTokens == nil && !insecure {
                throw ValidationError("--http \(http) is not a loopback address: give --api-tokens, or --insecure on a network you trust")
            }
            guard Self.gatewayEndpoint(bind) != nil else {
                throw ValidationError("--http needs a --bind with a port number (the API connects to it), not \(bind)")
            }
        } else if apiTokens != nil {
            throw ValidationError("--api-tokens goes with --http")
        }
        guard minFreeSpace >= 0 else { throw ValidationError("--min-free-space \(minFreeSpace) is negative") }
        guard Self.seconds(keepResults) != nil else {
            throw ValidationError("--keep-results '\(keepResults)' is not a duration such as 90s, 30m, 24h or 7d")
        }
        guard let jobs = Self.seconds(keepJobs) else {
            throw ValidationError("--keep-jobs '\(keepJobs)' is not a duration such as 90s, 30m, 24h or 7d")
        }
        if let results = Self.seconds(keepResults), jobs < results {
            throw ValidationError("--keep-jobs \(keepJobs) is shorter than --keep-results \(keepResults): a result would outlive its job")
        }
        guard chunkCacheSize >= 0 else { throw ValidationError("--chunk-cache-size \(chunkCacheSize) is negative") }
        let loopback = bind.hasPrefix("ipc://") || bind.hasPrefix("inproc://") || bind.contains("127.0.0.1") || bind.contains("localhost") || bind.contains("[::1]")
        if (curveKey == nil) != (authorizedKeys == nil) {
            throw ValidationError("--curve-key and --authorized-keys go together")
        }
        if !loopback && !insecure && curveKey == nil {
            throw ValidationError("--bind \(bind) is not a loopback address: give --curve-key and --authorized-keys, or --insecure on a network you trust (see docs/operations.md)")
        }
    }

    func run() async throws {
        var options = Coordinator.Options(endpoint: bind, stateDirectory: URL(fileURLWithPath: stateDir))
        options.mediaRoots = mediaRoots.map { URL(fileURLWithPath: $0) }
        options.looks = looks.map { URL(fileURLWithPath: $0) }
        options.strictLooks = strictLooks
        options.minimumFreeBytes = Int64(minFreeSpace) << 20
        options.chunkCacheBytes = Int64(chunkCacheSize) << 20
        options.keepResultsSeconds = Self.seconds(keepResults) ?? 86_400
        options.keepJobsSeconds = Self.seconds(keepJobs) ?? 30 * 86_400
        if let curveKey, let authorizedKeys {
            do {
                options.curve = CurveServer(keys: try CurveKeyPair.load(path: curveKey),
                                            authorized: try CurveKeyPair.authorizedKeys(path: authorizedKeys))
            } catch {
                printError("error: \(error)")
                throw Reported(code: ExitStatus.invalidInput)
            }
        }
        let logger = operations.logger("reel.coordinator")
        var extra: [any Service] = []
        if let http, let address = HTTPAddress(http), let endpoint = Self.gatewayEndpoint(bind) {
            let tokens: APITokens?
            do {
                tokens = try apiTokens.map { try APITokens.load(path: $0) }
            } catch {
                printError("error: \(error)")
                throw Reported(code: ExitStatus.invalidInput)
            }
            // Under CURVE the API is one more client: an admin key that lives as long as the process.
            var gatewayCurve: CurveClient?
            if var curve = options.curve {
                let keys = try CurveKeyPair.generate()
                curve.authorized[keys.publicKey] = .admin
                options.curve = curve
                gatewayCurve = CurveClient(keys: keys, serverKey: curve.keys.publicKey)
            }
            extra.append(APIServer.service(at: address, gateway: FarmGateway(endpoint: endpoint, curve: gatewayCurve), tokens: tokens,
                                           uploads: options.stateDirectory.appendingPathComponent("api-uploads"), logger: logger))
        }
        if let webhookSecret {
            let secret = (try? Data(contentsOf: URL(fileURLWithPath: webhookSecret))) ?? Data()
            let trimmed = Data(String(decoding: secret, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).utf8)
            guard trimmed.count >= 16 else {
                printError("error: --webhook-secret \(webhookSecret): needs a readable file of at least 16 characters")
                throw Reported(code: ExitStatus.invalidInput)
            }
            options.acceptsCallbacks = true
            extra.append(LoopService.webhooks(WebhookDeliverer(
                storePath: options.stateDirectory.appendingPathComponent("farm.sqlite").path, secret: trimmed,
                coordinatorPulse: options.pulse, logger: logger), logger: logger))
        }
        // SIGTERM/SIGINT: leave the loop after its turn (its changes committed), close, exit 0.
        try await farmCall {
            try await operations.run(LoopService.coordinator(options: options, logger: logger), alongside: extra, pulse: options.pulse,
                                     gracePeriod: nil, logger: logger)
        }
    }
}

extension CoordinatorCommand {
    /// Where the HTTP API reaches this coordinator: its TCP port on loopback, or its ipc path.
    static func gatewayEndpoint(_ bind: String) -> String? {
        if bind.hasPrefix("ipc://") { return bind }
        guard bind.hasPrefix("tcp://"), let colon = bind.lastIndex(of: ":"), let port = Int(bind[bind.index(after: colon)...]),
              port > 0 else { return nil }
        let host = bind[bind.index(bind.startIndex, offsetBy: 6)..<colon]
        return host == "0.0.0.0" || host == "*" ? "tcp://127.0.0.1:\(port)" : bind
    }

    /// `90s`, `30m`, `24h`, `7d` (or a number of seconds) in seconds; `nil` if not one.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let (number, unit) = text.last.flatMap { units[$0] }.map { (text.dropLast(), $0) } ?? (Substring(text), 1)
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        return value * unit
    }
}

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "worker",
        abstract: "Run a worker: render shards for a coordinator.")

    @Option(help: "Coordinator endpoint to connect to.")
    var connect: String

    @Option(help: "Shards rendered at once (default: the number of cores).")
    var slots: Int = ProcessInfo.processInfo.activeProcessorCount

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

    @OptionGroup var keys: CurveClientOptions

    @Flag(help: "Log nothing.")
    var quiet = false

    @OptionGroup var operations: OperationsOptions

    @Flag(help: .hidden) var testCorruptChunks = false
    @Flag(help: .hidden) var testFailAlways = false
    @Option(help: .hidden) var testRenderLog: String?
    @Option(help: .hidden) var testShardDelay: Int = 0

    func run() async throws {
        var options = Worker.Options(endpoint: connect, slots: max(1, slots), cacheDirectory: URL(fileURLWithPath: cacheDir))
        options.cacheLimit = Int64(max(1, cacheSize)) << 20
        options.stillCacheLimit = Int64(max(1, thumbnailCacheSize)) << 20
        options.mediaRoots = mediaRoots.map { URL(fileURLWithPath: $0) }
        options.corruptChunks = testCorruptChunks
        options.failAlways = testFailAlways
        options.renderLog = testRenderLog
        options.shardDelayMillis = max(0, testShardDelay)
        options.parentPID = parentPID
        options.drainSeconds = max(0, drainSeconds)
        options.curve = try keys.curve()
        let logger = operations.logger("reel.worker", quiet: quiet)
        // SIGTERM/SIGINT: drain (no new work; finish or hand back), then exit 0. Past the
        // drain (and a margin to hand back), or on SIGQUIT, it leaves at once.
        try await farmCall {
            try await operations.run(LoopService.worker(options: options, logger: logger), pulse: options.pulse,
                                     gracePeriod: .seconds(options.drainSeconds + 5), logger: logger)
        }
    }
}

struct SubmitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "submit",
        abstract: "Submit a session to a coordinator; prints the job id.")

    @OptionGroup var session: SessionOptions
    @OptionGroup var farm: CoordinatorOption

    @Option(help: "Higher runs first; equal priorities share the workers.")
    var priority: Int = 0

    @Flag(help: "Wait for the job, showing progress, and write -o when it is done.")
    var wait = false

    @Option(name: .shortAndLong, help: "Where to write the result (with --wait): a file, or with --segments a directory.")
    var output: String?

    @Flag(help: "Write one MP4 per segment (the SDK's export(segment:)); fetch them into a directory.")
    var segments = false

    @Option var crf: Int = 20
    @Option var preset: String = "veryfast"
    @Option(name: .customLong("keyframe-interval")) var keyframeInterval: Double = 2
    @Option(name: .customLong("audio-bitrate"), help: "AAC bit rate in kb/s, 32 … 512 (default 160).") var audioBitrate: Int?
    @Flag(name: .customLong("no-audio"), help: "Write a video-only file.") var noAudio = false
    @Option(help: "Video codec: h264 (libx264) or hevc (libx265, tagged hvc1).") var codec: EncoderSettings.VideoCodec = .h264

    var settings: EncoderSettings {
        EncoderSettings(crf: crf, preset: preset, keyframeIntervalSeconds: keyframeInterval,
                        audioBitRate: audioBitrate.map { $0 * 1000 }, audio: noAudio ? false : nil,
                        codec: codec == .h264 ? nil : codec)
    }

    func validate() throws {
        if output != nil && !wait { throw ValidationError("-o needs --wait (or use reel fetch JOB -o OUT)") }
        do { try settings.validate() }
        catch { throw ValidationError("\(error)") }
    }

    func run() throws {
        let loaded = try session.loadValid()
        let client = try farm.client()
        let result = try farmCall {
            try client.submit(loaded, settings: settings, priority: priority, layout: segments ? .segments : .whole)
        }
        guard case .submitted(let jobID, let reused, let shards) = result else {
            if case .invalid(let problems) = result { for p in problems { printError("error: \(p)") } }
            throw Reported(code: ExitStatus.invalidInput)
        }
        if reused > 0 { printError("reused \(reused) of \(shards) shards from the coordinator's chunk cache") }
        print(jobID)
        guard wait else { return }
        try followToDone(client, jobID, showProgress: true)
        if let output { try farmCall { try client.fetch(jobID, to: output) } }
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show jobs (or one job) on a coordinator.")

    @Argument var job: String?
    @OptionGroup var farm: CoordinatorOption
    @Flag var json = false
    @Option(help: "Jobs listed, newest first: 1 to 1000.") var limit = 100
    @Option(help: "The cursor a previous page ended with, for the next page.") var after: String?

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit \(limit) is not from 1 to 1000") }
    }

    func run() throws {
        let client = try farm.client()
        let reply = try farmCall { try client.statusReply(job, limit: limit, after: after) }
        let jobs = reply.jobs
        if let job, jobs.isEmpty {
            printError("error: no job \(job)")
            throw Reported(code: ExitStatus.invalidInput)
        }
        if json {
            try printJSON(job == nil ? AnyEncodable(jobs) : AnyEncodable(jobs[0]))
            return
        }
        for s in jobs {
            let shards = s.shards.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("\(s.jobID)  \(s.state)  \(s.framesDone)/\(s.totalFrames) frames  priority \(s.priority)  shards: \(shards)"
                  + (s.error.map { "  error: \($0)" } ?? "") + (s.paused.map { "  paused: \($0)" } ?? ""))
        }
        if job == nil, let next = reply.next { print("more: reel status --after \(next)") }
        if job == nil, let bytes = reply.stateBytes {
            print("state directory: \(String(format: "%.1f", Double(bytes) / 1_048_576)) MiB")
        }
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Follow a job until it ends (exit 0 done, 1 failed or cancelled).")

    @Argument var job: String
    @OptionGroup var farm: CoordinatorOption

    func run() throws {
        let client = try farm.client()
        let printer = ProgressPrinter()
        let final = try farmCall { try client.watch(job) { printer.update($0) } }
        printer.finish()
        print("\(final.jobID) \(final.state)" + (final.error.map { ": \($0)" } ?? ""))
        if final.state != .done { throw Reported(code: ExitStatus.failure) }
    }
}

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Cancel a job.")
    @Argument var job: String
    @OptionGroup var farm: CoordinatorOption

    func run() throws {
        let client = try farm.client()
        let status = try farmCall { try client.cancel(job) }
        print("\(job) \(status?.state.rawValue ?? "cancelled")")
    }
}

struct Fetch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Download a finished job's MP4 and sidecar (a per-segment job's files into the directory -o).")
    @Argument var job: String
    @OptionGroup var farm: CoordinatorOption
    @Option(name: .shortAndLong) var output: String
    @Flag(help: "Wait for the job to finish first.") var wait = false
    @Flag(help: "Remove the result from the coordinator once it is here.") var delete = false

    func run() throws {
        let client = try farm.client()
        if wait { try followToDone(client, job, showProgress: false) }
        try farmCall { try client.fetch(job, to: output) }
        if delete { try farmCall { try client.deleteResult(job) } }
    }
}

struct Workers: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the workers connected to a coordinator.")
    @OptionGroup var farm: CoordinatorOption
    @Flag var json = false

    func run() throws {
        let client = try farm.client()
        let workers = try farmCall { try client.workers() }
        if json { try printJSON(workers); return }
        for w in workers {
            let age = String(format: "%.1f", Date().timeIntervalSince1970 - w.lastHeartbeat)
            let fps = String(format: "%.1f", w.framesPerSecond ?? 0)
            let memory = w.residentKB.map { "  \($0 / 1024) MiB" } ?? ""
            print("\(w.workerID)  \(w.host)  slots \(w.slots)  busy \(w.busy)  done \(w.shardsDone)  \(fps) fps\(memory)  heartbeat \(age) s ago")
        }
    }
}

struct AnyEncodable: Encodable {
    let encode: (Encoder) throws -> Void
    init<T: Encodable>(_ value: T) { encode = value.encode }
    func encode(to encoder: Encoder) throws { try encode(encoder) }
}
