import CoreMetrics
import Foundation
import Metrics
import RenderEngine

/// Every metric a farm process exports, named in one place (docs/operations.md, "Metrics").
/// They go through swift-metrics: `reel coordinator|worker --metrics ADDR` bootstraps the
/// Prometheus backend; anywhere else (tests, `reel render`) they cost nothing.
enum CoordinatorMetrics {
    static let jobsSubmitted = Counter(label: "reelfarm_jobs_submitted_total")
    static func jobsEnded(_ phase: JobPhase) -> Counter {
        Counter(label: "reelfarm_jobs_ended_total", dimensions: [("state", phase.rawValue)])
    }
    /// Unfinished jobs by phase (queued, rendering, assembling).
    static func jobs(_ phase: JobPhase) -> Gauge { Gauge(label: "reelfarm_jobs", dimensions: [("state", phase.rawValue)]) }
    /// Shards of unfinished jobs by state (queued, running, done).
    static func shards(_ state: ShardState) -> Gauge { Gauge(label: "reelfarm_shards", dimensions: [("state", state.rawValue)]) }
    static let shardsDone = Counter(label: "reelfarm_shards_done_total")
    static let shardsFailed = Counter(label: "reelfarm_shards_failed_total")
    static let shardsReused = Counter(label: "reelfarm_shards_reused_total")
    static let framesRendered = Counter(label: "reelfarm_frames_rendered_total")
    /// Frames of finished shards per second over the last `FrameRate.window` seconds.
    static let framesPerSecond = Gauge(label: "reelfarm_frames_per_second")
    static let workers = Gauge(label: "reelfarm_workers")
    /// Connected workers by whether they take shards (`ready`, `draining`, `quarantined`;
    /// docs/operations.md, "Sick workers"), and by pool (`""`: none).
    static func workers(_ state: WorkerAvailability) -> Gauge {
        Gauge(label: "reelfarm_workers_by_state", dimensions: [("state", state.rawValue)])
    }
    static func poolWorkers(_ pool: String) -> Gauge { Gauge(label: "reelfarm_pool_workers", dimensions: [("pool", pool)]) }
    /// Shards of unfinished jobs by their pool (`""`: none) and state (`queued`,
    /// `running`): what a pool's autoscaler scales on (docs/operations.md, "Pools").
    static func poolShards(_ pool: String, _ state: ShardState) -> Gauge {
        Gauge(label: "reelfarm_pool_shards", dimensions: [("pool", pool), ("state", state.rawValue)])
    }
    static func slots(_ state: String) -> Gauge { Gauge(label: "reelfarm_worker_slots", dimensions: [("state", state)]) }
    static let bytesReceived = Counter(label: "reelfarm_bytes_received_total")
    static let bytesSent = Counter(label: "reelfarm_bytes_sent_total")
    static let chunkVerificationFailures = Counter(label: "reelfarm_chunk_verification_failures_total")
    static let storeCommit = Metrics.Timer(label: "reelfarm_store_commit_seconds")
    static let assembly = Metrics.Timer(label: "reelfarm_assembly_seconds")
    /// A job's frames and frames done, while it is unfinished: for its ETA.
    static func jobFrames(_ job: String) -> Gauge { Gauge(label: "reelfarm_job_frames", dimensions: [("job", job)]) }
    static func jobFramesDone(_ job: String) -> Gauge { Gauge(label: "reelfarm_job_frames_done", dimensions: [("job", job)]) }
    static let dispatchPaused = Gauge(label: "reelfarm_dispatch_paused")
    /// Each tenant's shards of unfinished jobs by state (`queued`, `running`): its share of
    /// the workers as dispatch gives it (docs/operations.md, "Tenants").
    static func tenantShards(_ tenant: String, _ state: ShardState) -> Gauge {
        Gauge(label: "reelfarm_tenant_shards", dimensions: [("tenant", tenant), ("state", state.rawValue)])
    }
}

enum WorkerMetrics {
    /// A shard's render, split into reading and decoding the source, the picture work
    /// (orient, crop, scale, filters) and encoding; `total` is the whole attempt.
    static func shardSeconds(_ phase: String) -> Metrics.Timer {
        Metrics.Timer(label: "reelfarm_worker_shard_seconds", dimensions: [("phase", phase)])
    }
    static func shards(_ result: String) -> Counter { Counter(label: "reelfarm_worker_shards_total", dimensions: [("result", result)]) }
    static let frames = Counter(label: "reelfarm_worker_frames_total")
    static let mediaCacheHits = Counter(label: "reelfarm_worker_media_cache_hits_total")
    static let mediaCacheMisses = Counter(label: "reelfarm_worker_media_cache_misses_total")
    static let mediaBytesFetched = Counter(label: "reelfarm_worker_media_bytes_fetched_total")
    static let residentBytes = Gauge(label: "reelfarm_worker_resident_memory_bytes")
    static let busySlots = Gauge(label: "reelfarm_worker_busy_slots")

    static func record(_ stats: VideoShardRenderer.Statistics) {
        frames.increment(by: Int64(stats.framesEncoded))
        guard stats.framesEncoded > 0 else { return }
        shardSeconds("decode").recordSeconds(stats.decodeSeconds)
        shardSeconds("process").recordSeconds(stats.processSeconds)
        shardSeconds("encode").recordSeconds(stats.encodeSeconds)
    }

    /// Once a second from the worker's loop.
    static func sample(busy: Int) {
        busySlots.record(busy)
        if let kB = ProcessMemory.residentKB { residentBytes.record(kB * 1024) }
    }
}

/// Frames per second over a sliding window, from a running total sampled once a second.
struct FrameRate {
    static let window = 10.0
    private var samples: [(time: Double, total: Int64)] = []

    mutating func add(total: Int64, at time: Double) -> Double {
        samples.append((time, total))
        samples.removeAll { time - $0.time > Self.window }
        guard let first = samples.first, time - first.time > 0 else { return 0 }
        return Double(total - first.total) / (time - first.time)
    }
}

/// What each family means, for `# HELP` (docs/operations.md, "Metrics"), and the families
/// each kind of process exports from its start, at zero: a dashboard then shows 0, not "no
/// data", and `rate()` sees the first increment.
public enum MetricsCatalogue {
    public enum Role: Sendable { case coordinator, worker }

    public static let help: [String: String] = [
        "reelfarm_jobs_submitted_total": "Jobs accepted by the coordinator.",
        "reelfarm_jobs_ended_total": "Jobs that ended, by final state.",
        "reelfarm_jobs": "Unfinished jobs, by phase.",
        "reelfarm_shards": "Shards of unfinished jobs, by state.",
        "reelfarm_shards_done_total": "Shards rendered and stored.",
        "reelfarm_shards_failed_total": "Shard attempts that failed.",
        "reelfarm_shards_reused_total": "Shards taken from the chunk cache instead of rendered.",
        "reelfarm_frames_rendered_total": "Frames of finished shards.",
        "reelfarm_frames_per_second": "Frames of finished shards per second over the last 10 seconds.",
        "reelfarm_workers": "Workers connected.",
        "reelfarm_workers_by_state": "Workers connected, by whether they take shards (ready, draining, quarantined).",
        "reelfarm_pool_workers": "Workers connected serving each pool (pool=\"\": those of none).",
        "reelfarm_pool_shards": "Queued and running shards of unfinished jobs, by their pool (pool=\"\": jobs of none).",
        "reelfarm_tenant_shards": "Queued and running shards of unfinished jobs, by tenant.",
        "reelfarm_worker_slots": "Worker slots, busy or free.",
        "reelfarm_bytes_received_total": "Bytes the coordinator received on its socket.",
        "reelfarm_bytes_sent_total": "Bytes the coordinator sent on its socket.",
        "reelfarm_chunk_verification_failures_total": "Chunks refused because their SHA-256 did not match.",
        "reelfarm_store_commit_seconds": "Seconds each job-store transaction took to commit.",
        "reelfarm_assembly_seconds": "Seconds each job's assembly (and upload) took.",
        "reel_coordinator_loop_lag_seconds": "Seconds the coordinator's loop kept a message or its periodic work waiting.",
        "reelfarm_job_frames": "Frames of an unfinished job.",
        "reelfarm_job_frames_done": "Frames done of an unfinished job.",
        "reelfarm_dispatch_paused": "1 while dispatch is paused for lack of disk, else 0.",
        "reelfarm_worker_shard_seconds": "Seconds of a worker's shard renders, by phase (decode, process, encode, total).",
        "reelfarm_worker_shards_total": "Shards a worker ended, by result.",
        "reelfarm_worker_frames_total": "Frames a worker encoded.",
        "reelfarm_worker_media_cache_hits_total": "Media files a worker found in its cache.",
        "reelfarm_worker_media_cache_misses_total": "Media files a worker fetched.",
        "reelfarm_worker_media_bytes_fetched_total": "Media bytes a worker fetched whole from the coordinator.",
        "reelfarm_worker_resident_memory_bytes": "A worker's resident memory.",
        "reelfarm_worker_busy_slots": "A worker's slots rendering.",
    ]

    /// Creates the role's families (the Prometheus backend registers a metric when it is
    /// made), with every label value the farm uses.
    public static func exportAtZero(_ role: Role) {
        switch role {
        case .coordinator:
            _ = [CoordinatorMetrics.jobsSubmitted, CoordinatorMetrics.shardsDone, CoordinatorMetrics.shardsFailed,
                 CoordinatorMetrics.shardsReused, CoordinatorMetrics.framesRendered, CoordinatorMetrics.bytesReceived,
                 CoordinatorMetrics.bytesSent, CoordinatorMetrics.chunkVerificationFailures]
            _ = [CoordinatorMetrics.storeCommit, CoordinatorMetrics.assembly, LoopLag.metric]
            for phase in [JobPhase.done, .failed, .cancelled] { _ = CoordinatorMetrics.jobsEnded(phase) }
            for phase in [JobPhase.queued, .rendering, .assembling] { CoordinatorMetrics.jobs(phase).record(0) }
            for state in ShardState.allCases { CoordinatorMetrics.shards(state).record(0) }
            for state in ["busy", "free"] { CoordinatorMetrics.slots(state).record(0) }
            for gauge in [CoordinatorMetrics.framesPerSecond, CoordinatorMetrics.workers, CoordinatorMetrics.dispatchPaused] { gauge.record(0) }
        case .worker:
            _ = [WorkerMetrics.frames, WorkerMetrics.mediaCacheHits, WorkerMetrics.mediaCacheMisses, WorkerMetrics.mediaBytesFetched]
            for phase in ["decode", "process", "encode", "total"] { _ = WorkerMetrics.shardSeconds(phase) }
            for result in ["done", "failed", "cancelled", "handed_back"] { _ = WorkerMetrics.shards(result) }
            WorkerMetrics.busySlots.record(0)
            WorkerMetrics.sample(busy: 0)
        }
    }

    /// The exposition with `# HELP` before each family's `# TYPE` line.
    public static func withHelp(_ exposition: String) -> String {
        var lines: [Substring] = []
        for line in exposition.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.split(separator: " ").dropFirst(2).first,
               let text = help[String(name)], lines.last?.hasPrefix("# HELP \(name) ") != true {
                lines.append("# HELP \(name) \(text)")
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
