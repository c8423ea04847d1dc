import CZeroMQ
import Foundation
import Logging
import Metrics
import RenderEngine
import SessionKit

extension Worker {
    public struct Options: Sendable {
        public var endpoint: String
        /// Coordinators that stand by for `endpoint` (docs/operations.md, "A standby
        /// coordinator"): the worker works for whichever leads.
        public var standbys: [String] = []
        public var endpoints: [String] { [endpoint] + standbys }
        public var slots: Int
        /// libavcodec frame threads per shard; 0: from the slot's share of the cores
        /// (`ShardThreads.sharing`, docs/rendering.md, "A shard's cores").
        public var decodeThreads = 0
        /// The pools it serves (docs/operations.md, "Pools").
        public var pools: [String] = []
        public var cacheDirectory: URL
        public var cacheLimit: Int64 = 10 << 30
        /// Thumbnails and frames kept in `cacheDirectory/stills`.
        public var stillCacheLimit: Int64 = 1 << 30
        public var workerID = "w-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        public var heartbeatMillis = 1000
        public var liveness = 3
        /// Test hooks: a hostile worker that corrupts its chunks, one that always fails,
        /// and a file that gets one line per render.
        public var corruptChunks = false
        public var failAlways = false
        public var renderLog: String?
        /// Test hook: a pause before each shard, so a test can act while a job is surely running.
        public var shardDelayMillis = 0
        /// CURVE keys for a coordinator that requires them.
        public var curve: CurveClient?
        /// Directories whose files may be read in place (a shared filesystem).
        public var mediaRoots: [URL] = []
        /// Reads media named by URL straight from their origins (docs/operations.md, "Sources by URL").
        public var origins = OriginClient(policy: URLPolicy())
        /// Raised by SIGTERM/SIGINT: take no more work, finish or hand back running shards
        /// within `drainSeconds`, then leave (docs/operations.md, "Shutting down").
        public var drain = StopSignal()
        public var drainSeconds = 30.0
        /// The process whose worker this is (`reel render`'s embedded farm): when it dies,
        /// this worker leaves too instead of running on as an orphan.
        public var parentPID: Int32?
        public var stop = StopSignal()
        /// Beats each time round the loop, for `/healthz`.
        public var pulse = LoopPulse()

        public init(endpoint: String, slots: Int, cacheDirectory: URL) {
            self.endpoint = endpoint
            self.slots = slots
            self.cacheDirectory = cacheDirectory
        }
    }
}
