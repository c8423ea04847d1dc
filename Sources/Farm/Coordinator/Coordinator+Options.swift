import CZeroMQ
import Foundation
import Logging
import RenderEngine
import SessionKit
import Synchronization

extension Coordinator {
    public struct Options: Sendable {
        public var endpoint: String
        public var stateDirectory: URL
        /// `--store`: the job store; SQLite in the state directory unless a PostgreSQL server is named.
        public var store: StoreLocation
        public var heartbeatMillis = 1000
        /// Missed heartbeats before a worker is dead.
        public var liveness = 3
        public var maxFailuresPerShard = 3
        /// Seconds before a straggling shard gets a backup copy (`Scheduler.Limits`); nil: never.
        public var backupAfterSeconds: Double? = 2.0
        /// Directories whose files submitted by path may be read in place.
        public var mediaRoots: [URL] = []
        /// The farm's looks directory: its looks replace a submission's (docs/filters.md).
        public var looks: URL?
        /// Refuse ReelFarm's stand-in images for the SDK's named looks.
        public var strictLooks = false
        /// Reads sources named by URL, to validate and plan (docs/operations.md, "Sources by URL").
        public var origins = OriginClient(policy: URLPolicy())
        /// CURVE keys and the allow-list; `nil` for a plain socket (loopback, or `--insecure`).
        public var curve: CurveServer?
        /// Finished chunks kept for reuse by later jobs (docs/rendering.md, "Reusing chunks").
        public var chunkCacheBytes: Int64 = 1 << 30
        /// Reuse chunks across owners (`--share-chunks`): faster for tenants with the same
        /// media, and a side channel between them (docs/rendering.md, "Reusing chunks").
        public var shareChunks = false
        /// How long a finished job's result (and unused uploads) are kept (docs/operations.md, "Housekeeping").
        public var keepResultsSeconds = 24 * 3600.0
        /// How long what is remembered of an ended job (its status, shards, attempts) is
        /// kept (docs/operations.md, "Housekeeping"); at least `keepResultsSeconds`.
        public var keepJobsSeconds = 30 * 86_400.0
        /// Free space kept in the state directory (docs/operations.md, "Disks").
        public var minimumFreeBytes: Int64 = 64 << 20
        /// Where the HTTP API in this process keeps uploads until they are whole, and hands
        /// them over from by path (docs/protocol.md, "Uploads").
        public var apiUploads: URL { stateDirectory.appendingPathComponent("api-uploads") }
        /// Ends `run()` when raised (from any thread).
        public var stop = StopSignal()
        /// Beats each turn of the loop, for `/healthz`.
        public var pulse = LoopPulse()
        /// Set while this coordinator leads, for `/readyz`.
        public var readiness = Readiness()
        /// The lead this coordinator holds in a shared store, and its lease: each turn
        /// renews it, and a turn that finds it lost ends `run()` with `LeaseLost`
        /// (docs/operations.md, "A standby coordinator"). Nil on a store of its own.
        public var lead: (term: LeaderLease.Term, seconds: Double)?
        /// How long the loop keeps work waiting (`reel_coordinator_loop_lag_seconds`).
        public var loopLag = LoopLag()
        /// The loop thread's scheduling policy (`--loop-priority`).
        public var loopPriority = LoopPriority.normal
        /// Jobs may name a callback URL: a webhook deliverer runs beside the coordinator
        /// (docs/api.md, "Webhooks").
        public var acceptsCallbacks = false
        /// Where callbacks may go: checked by name at submission (the deliverer checks
        /// the addresses at each attempt).
        public var callbackPolicy = URLPolicy()
        /// Each tenant's weight in the share of the workers (docs/operations.md, "Tenants"),
        /// by owner (a client key, or `token:NAME`), from the key and token files; 1 when not named.
        public var tenantWeights: [String: Double] = [:]
        /// The largest job taken (`--max-segments`, `--max-shards`).
        public var jobLimits = JobLimits()
        /// `--planned-slots`: the render slots the farm is sized for; a job that does not say
        /// how long its shards are gets the length for that many (docs/scale.md). 0: 2 GOPs.
        public var plannedSlots = 0
        /// `--trace FILE`: one JSON line per job and per attempt (`AttemptTrace`).
        public var tracePath: String?
        /// Files in place whose content ids and probes this process already has (`reel
        /// render`'s embedded farm: the command loaded and hashed them): kept at start, so
        /// the job's compile neither hashes nor probes them again. Never from a peer.
        public var knownMedia: [KnownMedium] = []

        public init(endpoint: String, stateDirectory: URL) {
            self.endpoint = endpoint
            self.stateDirectory = stateDirectory
            store = .sqlite(path: stateDirectory.appendingPathComponent("farm.sqlite").path)
        }
    }
}

extension Coordinator.Options {
    /// Directories whose paths a client is told by name, never by path (`Coordinator.scrub`).
    var publicDirectories: [(URL, String)] {
        let state = stateDirectory.standardizedFileURL
        return [(state.appendingPathComponent("media"), "the coordinator's media store"), (state, "the coordinator's state directory")]
            + mediaRoots.map { ($0, "a media root") }
    }
}
