import Foundation
import RenderEngine

/// What a sweep needs to know of the state directory, read on the I/O lane.
struct StateListing: Sendable {
    /// Jobs with a result: `JOB.mp4` (and its sidecar) for a whole job, the directory `JOB`
    /// for a per-segment one.
    var results: Set<String> = []
    /// Files of `media/`: uploads and partial uploads, with their last use (seconds since 1970).
    var uploads: [(name: String, used: Double)] = []
    /// Disk space of everything under the state directory.
    var bytes: Int64 = 0
    /// Ended jobs past `--keep-jobs` (read on the lane's store connection).
    var prunable: Result<[String], any Error> = .success([])

    static func read(_ state: URL) -> StateListing {
        var listing = StateListing()
        let names = (try? Disk.list(state.appendingPathComponent("results").path)) ?? []
        listing.results = Set(names.compactMap { $0.hasSuffix(".reel.json") ? nil : $0.hasSuffix(".mp4") ? String($0.dropLast(4)) : $0 }
            .filter { !TemporaryOutput.isTemporary($0) })
        let media = state.appendingPathComponent("media")
        for name in (try? Disk.list(media.path)) ?? [] {
            guard let info = Disk.status(media.appendingPathComponent(name).path) else { continue }
            listing.uploads.append((name, Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9))
        }
        listing.bytes = Coordinator.bytes(under: state)
        return listing
    }
}

extension Coordinator {
    /// Every 10 s (or half of `--keep-results`, if shorter): results of jobs that ended
    /// more than `--keep-results` ago are removed, with uploads no unfinished job reads
    /// that are as old, and what the coordinator remembers of those jobs; the state
    /// directory is measured (docs/operations.md, "Housekeeping"). The directory is listed
    /// and measured, and files removed, on the I/O lane; the loop only decides.
    func sweep() {
        let now = Self.now
        guard housekeeping.beginSweep(now: now, period: min(10, max(0.5, options.keepResultsSeconds / 2))) else { return }
        let (state, laneStore, cutoff) = (options.stateDirectory, laneStore, now - options.keepResultsSeconds)
        let jobsCutoff = now - options.keepJobsSeconds
        ioLane.post(key: "sweep") {
            let listing = StateListing.read(state)
            // Which of the listed results are past --keep-results, and which ended jobs
            // past --keep-jobs: thousands of ids looked up here, not on the loop.
            let ended = Result {
                try laneStore.ended(before: cutoff, among: Array(listing.results)).map { EndedJob(id: $0.id, finished: $0.finished) }
            }
            var listed = listing
            listed.prunable = Result { try laneStore.prunable(endedBefore: jobsCutoff) }
            // Heap pages freed since the last sweep go back to the kernel, whichever thread
            // freed them last (a passing large request's buffers are freed on several).
            HeapPolicy.releaseFreed()
            return .stateListed(listed, ended: ended, at: now)
        }
    }

    /// On the loop, what to remove of what the lane listed.
    func swept(_ listing: StateListing, ended: Result<[EndedJob], any Error>, at now: Double) {
        housekeeping.stateBytes = listing.bytes
        let cutoff = now - options.keepResultsSeconds
        var expired: [EndedJob] = []
        do {
            expired = try ended.get().filter { scheduler.jobs[$0.id] == nil && !resumptions.contains($0.id) }
        } catch {
            logLimited("sweep", "could not read which results are past --keep-results: \(FileErrorText.describe(error))")
        }
        var forgotten: [String] = []
        do {
            // Their rows go a slice a turn (`continuePruning`); what the loop holds of them now.
            forgotten = try listing.prunable.get().filter { !housekeeping.pruning.jobs.contains($0) }
            housekeeping.pruning.add(forgotten, answersBefore: now - options.keepJobsSeconds)
        } catch {
            logLimited("sweep", "could not read which ended jobs to forget: \(FileErrorText.describe(error))")
        }
        for id in expired.map(\.id) + forgotten { ledger.forget(id) }
        let inUse = Set(scheduler.jobs.values.flatMap { $0.spec.files.values.map(\.contentID) }).union(resumptions.mediaInUse)
        let uploads = listing.uploads.filter { upload in
            let hex = upload.name.hasSuffix(".part") ? String(upload.name.dropLast(5)) : upload.name
            return upload.used < cutoff && !inUse.contains("sha256:" + hex)
        }.map(\.name)
        let results = (expired.map(\.id) + forgotten).flatMap { resultPaths(of: $0) }
        let (media, receiver) = (self.media.directory, self.media.receiver)
        let (removedResults, forgottenJobs) = (expired, forgotten)
        ioLane.post(key: "sweep") {
            let failed = results.compactMap { path -> String? in
                do { try Disk.removeIfPresent(path) } catch { return FileErrorText.describe(error) }
                return nil
            }
            let removedUploads = MediaStore.removeUploads(uploads, in: media, unusedSince: cutoff, receiver: receiver)
            return .swept(SweepRemovals(results: removedResults, forgottenJobs: forgottenJobs, failures: failed, uploads: removedUploads, at: now))
        }
    }

    /// On the loop, once the sweep's files are removed: what it did, and the probes of the
    /// uploads it removed forgotten.
    func sweepEnded(_ removed: SweepRemovals) {
        housekeeping.sweepEnded()
        for job in removed.results {
            log("removed the result of job \(job.id), which ended \(Int(removed.at - job.finished)) s ago (--keep-results)", LogIDs(job: job.id))
        }
        for id in removed.forgottenJobs {
            log("forgot job \(id), which ended over \(Int(options.keepJobsSeconds)) s ago (--keep-jobs)", LogIDs(job: id))
        }
        if let failure = removed.failures.first { logLimited("sweep", "could not remove a result: \(failure)") }
        for id in removed.uploads { log("removed the upload \(id), unused for over \(Int(options.keepResultsSeconds)) s (--keep-results)") }
        do {
            try store.forgetProbes(of: removed.uploads)
        } catch {
            logLimited("sweep", "could not forget the probes of removed uploads: \(FileErrorText.describe(error))")
        }
    }

    /// Deletes the rows of jobs past `--keep-jobs` and the answers kept as long, for about
    /// `Pruning.sliceSeconds` a turn in statements of at most 64 rows: 1,000 jobs deleted in
    /// one statement each held the loop for as long as their shards took.
    func continuePruning() {
        guard !housekeeping.pruning.isEmpty else { return }
        let until = Self.uptime + Pruning.sliceSeconds
        do {
            while let job = housekeeping.pruning.jobs.first, Self.uptime < until {
                if try store.pruneSlice(of: job) { housekeeping.pruning.jobs.removeFirst() }
            }
            while let cutoff = housekeeping.pruning.answersBefore, Self.uptime < until {
                if try store.forgetAnswers(before: cutoff) < SQLStore.rowsOnALoop { housekeeping.pruning.answersBefore = nil }
            }
        } catch {
            logLimited("sweep", "could not forget ended jobs: \(FileErrorText.describe(error))")
            housekeeping.pruning = Pruning()   // chosen again at the next sweep
        }
    }

    /// A finished job's result and sidecar (or its directory of segments), and its live preview.
    func resultPaths(of id: String) -> [String] {
        let output = resultPath(job: id)
        return [output.path, Sidecar.path(for: output.path), resultPath(job: id, layout: .segments).path, previewDirectory(job: id).path]
    }



    /// Removes a finished job's result and sidecar (or its segments, gigabytes at times)
    /// and its preview on the I/O lane, after the reads of its result posted before; the
    /// loop forgets what it remembers of the job at once, and answers once the files are
    /// gone (a client's request: one job's files).
    func deleteResult(of id: String, for identity: PeerID) throws {
        guard scheduler.jobs[id] == nil, !resumptions.contains(id) else { throw FarmError(.notEnded, "job \(id) has not ended") }
        ledger.forget(id)
        let paths = resultPaths(of: id)
        ioLane.post(key: "result " + id, label: "result delete") {
            var failure: String?
            for path in paths where failure == nil {
                do { try Disk.removeIfPresent(path) } catch { failure = FileErrorText.describe(error) }
            }
            return .resultDeleted(job: id, failure: failure, to: identity)
        }
    }

    /// Why a finished job has no result to fetch.
    func missingResultReason(_ record: JobStore.JobRecord) -> String {
        if let holder = record.resultHolder, holder != options.lead?.term.candidate {
            return "the result of \(record.id) is on the disk of coordinator \(holder), which wrote it when it led; this coordinator "
                + "cannot read it (send results to an output URL to keep them through a takeover: docs/api.md, \"Output to a URL\")"
        }
        if let finished = record.finished, finished < Self.now - options.keepResultsSeconds {
            return "the result of \(record.id) was removed: results are kept \(Int(options.keepResultsSeconds)) s after a job ends (--keep-results)"
        }
        return "the result of \(record.id) is not on the coordinator (fetched with --delete, or removed)"
    }

    /// Disk space taken by the files under `directory`: `st_blocks` × 512, as `du` counts
    /// it. (Foundation's allocated-size key multiplies the blocks by the I/O block size on
    /// Linux, eight times too much.)
    static func bytes(under directory: URL) -> Int64 {
        LoopGuard.assertMayBlock("measuring \(directory.path)")
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return 0 }
        var total: Int64 = 0
        for case let relative as String in walker {
            if let info = Disk.status(directory.appendingPathComponent(relative).path) { total += Int64(info.st_blocks) * 512 }
        }
        return total
    }
}
