import Foundation

/// What only the loop knows of jobs, copied so that a status can be made on any thread
/// (docs/architecture.md, "What runs where"): on the loop for one job, on the I/O lane for
/// a page of the job list or a batch of 10,000, where the statuses are also encoded. The
/// tables are copy-on-write: taking the copy costs the loop a job's worth of work per
/// running job, not per job listed.
struct JobStatusMaker: Sendable {
    /// A job the scheduler holds: described from memory.
    struct Live: Sendable {
        var phase: JobPhase
        var priority: Int
        var farmPriority = 0
        var counts: ShardCounts
        var videoCounts: ShardCounts
        var doneBy: [ChunkSource: Int]
        var framesDone: Int64
        var framesInProgress: Int64 = 0
        var workerPeakRSSKB: Int?
        var pool: String? = nil
        /// Why no connected worker may take its queued shards (`Scheduler.waiting`).
        var waiting: String? = nil
    }

    var live: [String: Live]
    var endedUncommitted: [String: (phase: JobPhase, error: FarmError?, finished: Double?)]
    var assemblyTimes: [String: Double]
    var finishedPeakRSS: [String: Int]
    var mediaBytesSent: [String: Int64]
    var framesPerSecond: [String: Double]
    var paused: DispatchPause?
    /// Directories whose paths a client is told by name (`Coordinator.publicText`).
    var directories: [(URL, String)]

    /// `stored`: the store's counts and webhook, for a job the scheduler does not hold.
    func status(of record: JobStore.JobSummary, stored: StoredJob?) -> JobStatus {
        var counts = ShardCounts()
        var videoCounts: ShardCounts?
        var doneBy: [ChunkSource: Int] = [:]
        var framesDone: Int64 = 0
        let job = live[record.id]
        if let job {
            counts = job.counts
            videoCounts = job.videoCounts
            doneBy = job.doneBy
            framesDone = job.framesDone
        } else if let summed = stored?.counts {
            counts = summed.byState
            videoCounts = summed.video
            framesDone = summed.framesDone
            doneBy = summed.doneBy
        }
        let perWorker = doneBy.reduce(into: [String: Int]()) { workers, entry in
            if let id = entry.key.workerID, entry.value > 0 { workers[id] = entry.value }
        }
        let ended = endedUncommitted[record.id]
        let state = job?.phase ?? ended?.phase ?? record.state
        if state.isFinal {
            counts = counts.ended
            videoCounts = videoCounts?.ended
        }
        // A failed job's error keeps its code; a cancelled one's reason is `cancelled`.
        let error = (ended?.error?.message ?? record.error).map {
            FarmError(state == .failed ? ended?.error?.code ?? record.errorCode ?? .internal : .cancelled,
                      Coordinator.scrub($0, naming: directories))
        }
        var status = JobStatus(jobID: record.id, state: state, priority: job?.priority ?? record.priority, framesDone: framesDone,
                               totalFrames: record.totalFrames, shards: counts, error: error,
                               created: record.created, finished: ended?.finished ?? record.finished, workers: perWorker,
                               reusedShards: doneBy[.reused] ?? 0,
                               assemblySeconds: assemblyTimes[record.id], workerPeakRSSKB: job?.workerPeakRSSKB ?? finishedPeakRSS[record.id],
                               paused: job == nil ? nil : paused, mediaBytesSent: mediaBytesSent[record.id],
                               owner: record.owner, batch: record.batch, variant: record.variant)
        if let farmPriority = job?.farmPriority, farmPriority > 0 { status.farmPriority = farmPriority }
        status.pool = job?.pool
        status.videoShards = videoCounts
        if let job, !state.isFinal, job.framesInProgress > 0 { status.framesInProgress = job.framesInProgress }
        if let why = job?.waiting {
            status.paused = DispatchPause(causes: (paused?.causes ?? []) + [.noWorker],
                                          message: (paused.map { $0.message + "; " } ?? "") + why)
        }
        if record.state == state, state.isFinal { status.webhook = stored?.webhook }
        status.published = record.published.flatMap { try? JSONDecoder().decode(PublishedOutput.self, from: Data($0.utf8)) }
        if let fps = framesPerSecond[record.id] {
            status.framesPerSecond = fps
            if fps > 0 { status.etaSeconds = Double(record.totalFrames - framesDone) / fps }
        }
        return status
    }
}

extension Coordinator {
    /// The loop's knowledge of jobs as it is now: of `only` that job, or of every job the
    /// scheduler holds.
    func statusMaker(only id: String? = nil) -> JobStatusMaker {
        let held = id.map { id in scheduler.jobs[id].map { [$0] } ?? [] } ?? Array(scheduler.jobs.values)
        var live: [String: JobStatusMaker.Live] = [:]
        var rates: [String: Double] = [:]
        for job in held {
            live[job.id] = JobStatusMaker.Live(phase: job.phase, priority: job.priority, farmPriority: job.farmPriority, counts: job.counts,
                                               videoCounts: job.videoCounts, doneBy: job.doneBy, framesDone: job.framesDone,
                                               framesInProgress: job.framesInProgress, workerPeakRSSKB: job.workerPeakRSSKB,
                                               pool: job.pool, waiting: scheduler.waiting[job.id])
        }
        for id in id.map({ [$0] }) ?? Array(live.keys) { rates[id] = activity.framesPerSecond(ofJob: id) }
        return JobStatusMaker(live: live, endedUncommitted: ledger.endedUncommitted, assemblyTimes: ledger.assemblyTimes,
                              finishedPeakRSS: ledger.finishedPeakRSS, mediaBytesSent: ledger.mediaBytes.byJob, framesPerSecond: rates, paused: scheduler.paused,
                              directories: publicDirectories)
    }
}
