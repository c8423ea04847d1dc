import ArgumentParser
import Farm
import FarmHTTP
import ServiceLifecycle
import Foundation
import RenderEngine
import SessionKit

struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coordinator",
        abstract: "Run a coordinator: job store, scheduler and assembler for a farm of workers.")

    @Option(help: "ZeroMQ endpoint to bind, e.g. tcp://0.0.0.0:7700 (HOST:PORT is read as tcp://).", transform: parseEndpoint)
    var bind: String = "tcp://127.0.0.1:7700"

    @Option(name: .customLong("state-dir"), help: "Directory for the job store, chunks, media and results.")
    var stateDir: String

    @Option(name: .customLong("store"), help: ArgumentHelp(
        "Keep the job store in this PostgreSQL server instead of SQLite in --state-dir; coordinators given the same one stand by for each other (docs/operations.md, \"A standby coordinator\").",
        valueName: "postgresql://USER@HOST:PORT/DB"))
    var store: String?

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

    @Flag(name: .customLong("share-chunks"), help: ArgumentHelp(
        "Reuse one owner's chunks for another's identical shards (same media, same edit). Faster, but a tenant can then "
            + "tell from how fast a job ends that someone else rendered the same edit of the same media."))
    var shareChunks = false

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

    @OptionGroup var urls: URLOptions

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

    @Option(name: .customLong("test-stop-http-after"), help: .hidden)
    var testStopHTTPAfter: Double?

    @Option(help: ArgumentHelp("Append every job and shard attempt as a JSON line to FILE (docs/operations.md, \"Tracing a render\").",
                               valueName: "file"))
    var trace: String?

    @Option(name: .customLong("max-segments"), help: "Segments one session may have (more: refused, exit 2 / 422).")
    var maxSegments = 1_000

    @Option(name: .customLong("max-shards"), help: "Shards one job may be planned into (more: refused, exit 2 / 422).")
    var maxShards = 10_000

    @Option(name: .customLong("planned-slots"),
            help: "Render slots the farm is sized for (workers × slots): a job that does not set its shard length gets 1 keyframe interval per shard when 2 would give fewer shards than this, else 2 (docs/scale.md, \"Shard length\"). 0: always 2.")
    var plannedSlots = 0

    @Option(name: .customLong("loop-priority"),
            help: "The event loop thread's scheduling: normal, or realtime (SCHED_RR, needs CAP_SYS_NICE; refused: normal, with a warning). Keeps the loop's lag low on a busy machine (docs/operations.md, \"Loop lag\").")
    var loopPriority = LoopPriority.normal

    @Option(name: .customLong("max-connections"), help: "HTTP connections the API holds at once (more: 503).")
    var maxConnections = 2048

    @Option(name: .customLong("max-connections-per-client"),
            help: "HTTP connections one client address holds at once (more: 503); a sixteenth of --max-connections, so a few addresses cannot take them all.")
    var maxConnectionsPerClient = 128

    @Option(name: .customLong("max-upload"), help: "The largest file one upload may make, in MiB (more: 413, also while a body of no declared length streams).")
    var maxUpload = Int(APIRoutes.defaultMaxUpload >> 20)

    @Option(name: .customLong("body-timeout"),
            help: "Seconds a request body may go silent while the API waits for it; past that many seconds in all it must also average --min-body-rate (else the connection is closed).")
    var bodyTimeout = 10

    @Option(name: .customLong("min-body-rate"), help: "Bytes per second a request body must average once it has been waited for --body-timeout seconds.")
    var minBodyRate = 1024

    @Option(name: .customLong("max-event-streams"), help: "Event streams the HTTP API serves at once (more: 429).")
    var maxEventStreams = 1024

    @Option(name: .customLong("max-event-streams-per-client"), help: "Event streams one API token may hold at once (more: 429).")
    var maxEventStreamsPerClient = 64

    @Option(name: .customLong("allow-callback-host"), help: ArgumentHelp(
        "A host webhooks may go to (repeatable; then only the hosts listed). Loopback, private, link-local and metadata "
            + "addresses are refused unless their host is listed.", valueName: "host"))
    var allowCallbackHosts: [String] = []

    @Option(name: .customLong("url-signing-secret"), help: ArgumentHelp(
        "File holding the key that signs the API's short-lived URLs (at least 16 characters; the same on every replica). "
            + "Default: a random key, so signed URLs end when the coordinator restarts.", valueName: "file"))
    var urlSigningSecret: String?

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
        guard (1...99_999).contains(maxSegments), maxShards >= 1, plannedSlots >= 0, maxEventStreams >= 1, maxEventStreamsPerClient >= 1, maxConnections >= 1,
              maxConnectionsPerClient >= 1, (1...(1 << 40)).contains(maxUpload), bodyTimeout >= 1, minBodyRate >= 0 else {
            throw ValidationError("--max-segments is 1 … 99999; --max-upload 1 … 2^40 MiB; --max-shards, --max-connections, --max-connections-per-client, --body-timeout, "
                + "--max-event-streams and --max-event-streams-per-client at least 1; --planned-slots and --min-body-rate at least 0")
        }
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
        do {
            _ = try StoreLocation(store, stateDirectory: URL(fileURLWithPath: stateDir))
        } catch let error as FarmError {
            throw ValidationError(error.message)
        }
        if (curveKey == nil) != (authorizedKeys == nil) {
            throw ValidationError("--curve-key and --authorized-keys go together")
        }
        if !loopback && !insecure && curveKey == nil {
            throw ValidationError("--bind \(bind) is not a loopback address: give --curve-key and --authorized-keys, or --insecure on a network you trust (see docs/operations.md)")
        }
    }

    func run() async throws {
        HeapPolicy.shareHeaps()
        var options = Coordinator.Options(endpoint: bind, stateDirectory: URL(fileURLWithPath: stateDir))
        options.store = try StoreLocation(store, stateDirectory: options.stateDirectory)
        options.mediaRoots = mediaRoots.map { URL(fileURLWithPath: $0) }
        options.looks = looks.map { URL(fileURLWithPath: $0) }
        options.strictLooks = strictLooks
        options.origins = urls.client
        options.minimumFreeBytes = Int64(minFreeSpace) << 20
        options.tracePath = trace
        options.jobLimits.segments = maxSegments
        options.jobLimits.shards = maxShards
        options.plannedSlots = plannedSlots
        options.loopPriority = loopPriority
        options.chunkCacheBytes = Int64(chunkCacheSize) << 20
        options.shareChunks = shareChunks
        options.keepResultsSeconds = Self.seconds(keepResults) ?? 86_400
        options.keepJobsSeconds = Self.seconds(keepJobs) ?? 30 * 86_400
        if let curveKey, let authorizedKeys {
            do {
                let authorized = try CurveKeyPair.authorized(path: authorizedKeys)
                options.curve = CurveServer(keys: try CurveKeyPair.load(path: curveKey), authorized: authorized.roles)
                options.tenantWeights.merge(authorized.weights) { $1 }
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
                options.tenantWeights.merge(tokens?.weights ?? [:]) { $1 }
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
            // A connection is a descriptor: they stay below the descriptors the process has,
            // with headroom for the farm's own; a stream is a connection, and at most half of
            // them (docs/operations.md, "Limits").
            let descriptors = DescriptorLimit.raiseToHard()
            let connections = ConnectionBudget(limit: min(maxConnections, max(32, descriptors - DescriptorLimit.headroom)),
                                               perClient: maxConnectionsPerClient,
                                               body: BodyDeadline(silenceSeconds: Int64(bodyTimeout), minBytesPerSecond: minBodyRate))
            var streams = JobEvents.Budget()
            streams.total = min(maxEventStreams, max(16, connections.limit / 2))
            streams.perClient = min(maxEventStreamsPerClient, streams.total)
            logger.info("HTTP API: at most \(connections.limit) connections (\(connections.perClient) per client address), \(streams.total) event streams, \(streams.perClient) per client (\(descriptors) descriptors)")
            var signer = URLSigner.random()
            if let urlSigningSecret { signer = URLSigner(secret: try Self.secret(urlSigningSecret, option: "--url-signing-secret")) }
            extra.append(EssentialService("the HTTP API", APIServer.service(
                at: address, gateway: FarmGateway(endpoint: endpoint, curve: gatewayCurve), tokens: tokens,
                uploads: options.apiUploads, maxUpload: Int64(maxUpload) << 20, signer: signer, streams: streams,
                connections: connections, logger: logger),
                stopAfter: testStopHTTPAfter.map { .milliseconds(Int($0 * 1000)) }))
        }
        if let webhookSecret {
            let trimmed = try Self.secret(webhookSecret, option: "--webhook-secret")
            options.acceptsCallbacks = true
            options.callbackPolicy = URLPolicy(allowedHosts: allowCallbackHosts)
            extra.append(LoopService.webhooks(WebhookDeliverer(
                store: options.store, secret: trimmed,
                coordinatorPulse: options.pulse, leading: options.store.isShared ? options.readiness : nil, logger: logger, policy: options.callbackPolicy), logger: logger))
        }
        // SIGTERM/SIGINT: leave the loop after its turn (its changes committed), close, exit 0.
        try await farmCall {
            try await operations.run(LoopService.coordinator(options: options, logger: logger), alongside: extra, role: .coordinator, pulse: options.pulse,
                                     readiness: options.readiness, gracePeriod: nil, logger: logger)
        }
    }
}

extension CoordinatorCommand {
    /// Where the HTTP API reaches this coordinator: its TCP port on loopback, or its ipc path.
    /// A secret kept in a file (surrounding whitespace dropped), at least 16 characters.
    static func secret(_ path: String, option: String) throws -> Data {
        let text = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data(), as: UTF8.self)
        let trimmed = Data(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard trimmed.count >= 16 else {
            printError("error: \(option) \(path): needs a readable file of at least 16 characters")
            throw Reported(code: ExitStatus.invalidInput)
        }
        return trimmed
    }

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

extension LoopPriority: ExpressibleByArgument {}
