import Foundation
import RenderEngine

extension Coordinator {
    /// Every 10 s (or half of `--keep-results`, if shorter): results of jobs that ended more than `--keep-results` ago are removed,
    /// with uploads no unfinished job reads that are as old, and what the coordinator
    /// remembers of those jobs; the state directory is measured (docs/operations.md,
    /// "Housekeeping").
    func sweep() {
        let now = Self.now
        guard now - housekeeping.lastSweep >= min(10, max(0.5, options.keepResultsSeconds / 2)) else { return }
        housekeeping.lastSweep = now
        let cutoff = now - options.keepResultsSeconds
        let results = options.stateDirectory.appendingPathComponent("results")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: results.path)) ?? []
        // `JOB.mp4` (and its sidecar) for a whole job, the directory `JOB` for a per-segment one.
        for id in Set(names.compactMap { $0.hasSuffix(".reel.json") ? nil : $0.hasSuffix(".mp4") ? String($0.dropLast(4)) : $0 }) {
            do {
                guard let record = try store.jobSummary(id), let finished = record.finished, finished < cutoff,
                      scheduler.jobs[id] == nil else { continue }
                try deleteResult(of: id)
                log("removed the result of job \(id), which ended \(Int(now - finished)) s ago (--keep-results)", LogIDs(job: id))
            } catch {
                logLimited("sweep", "could not remove the result of job \(id): \(FileErrorText.describe(error))")
            }
        }
        do {
            for id in try store.prune(endedBefore: now - options.keepJobsSeconds) {
                try deleteResult(of: id)
                log("forgot job \(id), which ended over \(Int(options.keepJobsSeconds)) s ago (--keep-jobs)", LogIDs(job: id))
            }
        } catch {
            logLimited("sweep", "could not forget ended jobs: \(FileErrorText.describe(error))")
        }
        let inUse = Set((Array(scheduler.jobs.values) + resumingJobs.values).flatMap { $0.spec.files.values.map(\.contentID) })
        let removed = media.removeUploads(olderThan: cutoff, except: inUse)
        for id in removed {
            log("removed the upload \(id), unused for over \(Int(options.keepResultsSeconds)) s (--keep-results)")
        }
        do {
            try store.forgetProbes(of: removed)
        } catch {
            logLimited("sweep", "could not forget the probes of removed uploads: \(FileErrorText.describe(error))")
        }
        housekeeping.stateBytes = Self.bytes(under: options.stateDirectory)
    }

    /// Removes a finished job's result and sidecar, and what is remembered of it.
    func deleteResult(of id: String) throws {
        guard scheduler.jobs[id] == nil, resumingJobs[id] == nil else { throw FarmError(.notEnded, "job \(id) has not ended") }
        let output = resultPath(job: id)
        for path in [output.path, Sidecar.path(for: output.path), resultPath(job: id, layout: .segments).path]
            where FileManager.default.fileExists(atPath: path) {
            try FileManager.default.removeItem(atPath: path)
        }
        assemblyTimes[id] = nil
        finishedPeakRSS[id] = nil
        mediaBytesSent.byJob[id] = nil
    }

    /// Why a finished job has no result to fetch.
    func missingResultReason(_ record: JobStore.JobRecord) -> String {
        if let finished = record.finished, finished < Self.now - options.keepResultsSeconds {
            return "the result of \(record.id) was removed: results are kept \(Int(options.keepResultsSeconds)) s after a job ends (--keep-results)"
        }
        return "the result of \(record.id) is not on the coordinator (fetched with --delete, or removed)"
    }

    /// Disk space taken by the files under `directory`: `st_blocks` × 512, as `du` counts
    /// it. (Foundation's allocated-size key multiplies the blocks by the I/O block size on
    /// Linux, eight times too much.)
    static func bytes(under directory: URL) -> Int64 {
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return 0 }
        var total: Int64 = 0
        for case let relative as String in walker {
            var info = stat()
            if lstat(directory.appendingPathComponent(relative).path, &info) == 0 { total += Int64(info.st_blocks) * 512 }
        }
        return total
    }
}
