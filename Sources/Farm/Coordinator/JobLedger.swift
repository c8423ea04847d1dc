import Foundation

/// What the loop knows of jobs beside the scheduler (docs/architecture.md, "Owners"): when
/// each assembly began and how long it took, the workers' peak memory of finished jobs,
/// the media bytes sent, and the ends not committed yet. Statuses read it (through
/// `JobStatusMaker`); the sweep forgets a job's figures with its result.
struct JobLedger {
    /// Jobs that ended while their end is not committed yet: a status tells the truth anyway.
    private(set) var endedUncommitted: [String: (phase: JobPhase, error: FarmError?, finished: Double?)] = [:]
    private var assemblyStarted: [String: Date] = [:]
    private(set) var assemblyTimes: [String: Double] = [:]
    private(set) var finishedPeakRSS: [String: Int] = [:]
    /// Media bytes sent to workers since this process started.
    private(set) var mediaBytes = (byWorker: [String: Int64](), byJob: [String: Int64]())

    mutating func ended(_ job: String, _ phase: JobPhase, error: FarmError?, finished: Double?) {
        endedUncommitted[job] = (phase, error, finished)
    }

    /// The turn committed: the store tells every end from now on.
    mutating func committed() { endedUncommitted = [:] }

    mutating func assemblyBegan(_ job: String, at time: Date) { assemblyStarted[job] = time }

    /// Seconds since the job's last chunk was stored (0 if unknown).
    mutating func assemblyEnded(_ job: String, at time: Date) -> Double {
        assemblyStarted.removeValue(forKey: job).map { time.timeIntervalSince($0) } ?? 0
    }

    mutating func assembled(_ job: String, seconds: Double, peakRSSKB: Int?) {
        assemblyTimes[job] = seconds
        if let peakRSSKB { finishedPeakRSS[job] = peakRSSKB }
    }

    mutating func mediaSent(_ bytes: Int64, to worker: String, forJob job: String?) {
        mediaBytes.byWorker[worker, default: 0] += bytes
        if let job { mediaBytes.byJob[job, default: 0] += bytes }
    }

    /// The job's result is gone: its figures go with it.
    mutating func forget(_ job: String) {
        assemblyTimes[job] = nil
        finishedPeakRSS[job] = nil
        mediaBytes.byJob[job] = nil
    }
}
