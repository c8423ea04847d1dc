import Foundation
import RenderEngine
import SessionKit

extension Coordinator {
    /// Loads every unfinished job after a (re)start: finished shards are kept when their
    /// chunk still verifies; running ones go back to the queue, and their attempts are
    /// closed as lost. The store changes this needs are written with the first turn, so a
    /// coordinator starts on a full disk (docs/operations.md, "Disks"). The kept chunks are
    /// read and hashed on the I/O lane, not here: each job joins the scheduler when its
    /// chunks are checked (`resumed`), and the loop serves everyone meanwhile.
    func resume() throws {
        let now = Self.now
        var changes: [StoreChange] = []
        // A batch or a job half made when the last run stopped is not created: all or none.
        for (batch, cancelled) in try store.abandonUnfinishedBatches(at: now) {
            log("\(batch) was being made when the coordinator stopped: its \(cancelled.count) job(s) made so far are cancelled",
                level: .warning)
            for id in cancelled { discardChunks(of: id) }
        }
        // Results that were being written when the last run stopped are written again.
        let results = options.stateDirectory.appendingPathComponent("results")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: results.path)) ?? [] where TemporaryOutput.isTemporary(name) {
            unlink(results.appendingPathComponent(name).path)
        }
        for record in try store.jobs(states: JobPhase.allCases.filter { !$0.isFinal }) {
            if let lost = lostMedia(of: record) {
                log("job \(record.id) failed: \(lost.message)", LogIDs(job: record.id), level: .warning)
                changes.append(.closeOpenAttempts(job: record.id, reason: "coordinator restarted", at: now))
                changes.append(.jobPhase(record.id, .failed, error: lost, finished: now))
                continue
            }
            // Its spec is decoded on the lane; an older release's job is compiled again
            // on the loop when the lane finds it cannot read it (rare, once).
            let parts = ResumedJob(record: ResumedJob.Record(id: record.id, priority: record.priority, farmPriority: record.farmPriority,
                                                             created: record.created, owner: record.owner,
                                                             paths: record.paths), sharesChunks: options.shareChunks,
                                   pathStats: SubmissionCompiler.verifiedStats(files: record.files, paths: record.paths, catalog: media.catalog,
                                                                               known: media.known),
                                   storedSpec: try store.spec(of: record.id), spec: nil, shards: try store.storedShards(of: record.id),
                                   attempts: try store.attemptCounts(job: record.id),
                                   failures: try store.failures(job: record.id).mapValues { $0.map { ResumedJob.Failure(worker: $0.worker, message: $0.message) } })
            changes.append(.closeOpenAttempts(job: record.id, reason: "coordinator restarted", at: now))
            resumptions.begin(record.id, reading: Set(record.files.values))
            build(parts)
        }
        // Written before the socket listens, so they are not a turn's work (about 90 ms for
        // 5,300 open attempts); a store that cannot write now keeps them for the first turn.
        do {
            try store.batch { for change in changes { try store.apply(change) } }
        } catch {
            log("the restart's closing of open attempts waits for the first turn: \(error)", level: .warning)
            unsaved = changes + unsaved
        }
    }

    /// Media a resumed job needs that this coordinator cannot read: uploaded to the one that
    /// led before, whose disk is not this one (docs/operations.md, "A standby coordinator"),
    /// or removed from this state directory. Media by URL are read again from their origin,
    /// and media by path from a media root. Read before the socket listens.
    private func lostMedia(of record: JobStore.JobRecord) -> FarmError? {
        let lost = record.files.filter { reference, contentID in
            !MediaURL.isURL(reference) && MediaStore.hex(contentID) != nil && !media.catalog.mayHold(contentID, candidate: record.paths[reference])
        }
        guard let (reference, contentID) = lost.min(by: { $0.key < $1.key }) else { return nil }
        let why = options.store.isShared ? "was uploaded to the coordinator that led before, and its disk is not this one's"
            : "is no longer in this coordinator's state directory"
        return FarmError(.mediaLost, "'\(reference)' (\(contentID))\(lost.count > 1 ? " and \(lost.count - 1) more" : "") \(why): "
            + "upload it again and submit the job again")
    }

    /// Builds a resumed job on the I/O lane: its plan decoded, its kept chunks checked.
    private func build(_ parts: ResumedJob) {
        let paths = chunkPaths(job: parts.record.id, count: (parts.shards.map(\.index).max() ?? -1) + 1)
        ioLane.post(key: parts.record.id, label: "resume") {
            .resumed(parts, Result { try parts.build(chunkPaths: paths) })
        }
    }

    /// On the loop, a resumed job built and its kept chunks checked on the lane: it joins
    /// the scheduler, and every shard that was neither kept nor queued goes back to the queue.
    func resumed(_ parts: ResumedJob, _ built: Result<ResumedJob.Built, any Error>) {
        let id = parts.record.id
        if case .failure(let error) = built, error is ResumedJob.OlderRelease, parts.spec == nil, resumptions.contains(id) {
            // An older release's job is compiled again from its session, on the lane: it
            // hashes and probes its files.
            let (laneStore, context) = (laneStore, submissionContext)
            ioLane.post(key: id, label: "recompile") { .recompiled(parts, Result { try laneStore.recompile(id, context: context) }) }
            return
        }
        guard let asked = resumptions.finish(id) else { return }
        let resumed: ResumedJob.Built
        do {
            resumed = try built.get()
        } catch {
            // What cannot be read as its plan fails, with the reason, rather than stalling.
            log("job \(id) cannot be resumed: \(error)", LogIDs(job: id), level: .error)
            apply([.persist(.jobPhase(id, .failed, error: FarmError(.internal, "the coordinator could not resume it: \(error)"), finished: Self.now))])
            return
        }
        var job = resumed.job
        if let priority = asked.priority { job.priority = priority }
        if let priority = asked.farmPriority { job.farmPriority = priority }
        if !resumed.requeue.isEmpty { apply([.persist(.requeueAll(job: id, shards: resumed.requeue))]) }
        log("resumed job \(id): \(resumed.kept)/\(job.tasks.count) shards kept", LogIDs(job: id))
        beginAssembly(of: job)
        apply(scheduler.handle(.submitted(job, nil), now: Self.now))
        if asked.cancelled { apply(scheduler.handle(.cancel(id), now: Self.now)) }
    }

    /// On the loop, an older release's job compiled again on the lane: built again with
    /// its new plan, the files it verified remembered.
    func recompiled(_ parts: ResumedJob, _ compiled: Result<LaneStore.Recompiled, any Error>) {
        switch compiled {
        case .success(let recompiled):
            for file in recompiled.verified { media.remember(contentID: file.contentID, path: file.path, stat: file.stat) }
            log("job \(parts.record.id): compiled again from its session (stored by an older release)", LogIDs(job: parts.record.id))
            var again = parts
            again.spec = recompiled.spec
            build(again)
        case .failure(let error):
            resumed(parts, .failure(error))
        }
    }

    var submissionContext: SubmissionCompiler.Context {
        SubmissionCompiler.Context(stateDirectory: options.stateDirectory, catalog: media.catalog, looks: options.looks,
                                   strictLooks: options.strictLooks, acceptsCallbacks: options.acceptsCallbacks,
                                   callbackPolicy: options.callbackPolicy, limits: options.jobLimits, sharesChunks: options.shareChunks,
                                   origins: options.origins)
    }

    /// Submissions the compiler has finished: answered, or created as jobs.
    func collectSubmissions() {
        for outcome in compiler.take() {
            switch outcome {
            case .answer(let identity, let reply): send(to: identity, .submitted, reply)
            case .failed(let identity, let error): send(to: identity, .error, FarmError(error.code, publicText(error.message)))
            case .compiled(let compiled):
                guard !isPastDeadline(compiled.deadline, of: compiled.identity) else { continue }
                do {
                    try create(compiled)
                } catch {
                    logLimited("submit", "a compiled submission could not be created: \(error)")
                    send(to: compiled.identity, .error, FarmError(FarmError.from(error).code, publicText("\(error)")))
                }
            case .compiledBatch(let identity, let jobs):
                guard !isPastDeadline(jobs.first?.deadline, of: identity) else { continue }
                do {
                    try createBatch(jobs, for: identity)
                } catch {
                    logLimited("submit", "a compiled batch could not be created: \(error)")
                    send(to: identity, .error, FarmError(FarmError.from(error).code, publicText("\(error)")))
                }
            }
        }
    }

    /// Whether the submitter has stopped waiting (docs/api.md, "Submitting"): then the
    /// submission is dropped, not created, and said so.
    private func isPastDeadline(_ deadline: Double?, of identity: Data) -> Bool {
        guard let deadline, Self.now > deadline else { return false }
        logLimited("past deadline", "a submission compiled after its client stopped waiting was not created")
        send(to: identity, .error, SubmissionCompiler.pastDeadline)
        return true
    }

    /// A compiled submission becomes a job: its rows written (a slice a turn), then its
    /// shards in the scheduler and the chunks the cache already holds linked in.
    private func create(_ compiled: SubmissionCompiler.Compiled) throws {
        if try answeredBefore(compiled.request, owner: compiled.owner, digest: compiled.digest, identity: compiled.identity) { return }
        for file in compiled.verified { media.remember(contentID: file.contentID, path: file.path, stat: file.stat) }
        // Not a problem of the session: the farm's disk (507 over HTTP), nothing created.
        if let shortfall = diskShortfall(for: compiled.spec.output) {
            send(to: compiled.identity, .error, FarmError(.storageFull, shortfall))
            return
        }
        creations.add(JobCreations.Creation(identity: compiled.identity, kind: .job, current: begin(compiled, batch: nil)))
        continueCreations()
    }

    /// Whether a created job or batch already answered this request's idempotency key (a
    /// retry compiled while the first was): then that answer is sent again, or a refusal
    /// for another request under the key. The loop's own connection sees the answer its
    /// turn has just written, so two tries of one key never make two jobs.
    private func answeredBefore(_ request: Submit, owner: String?, digest: String?, identity: Data) throws -> Bool {
        guard let key = request.idempotencyKey, let digest, let first = try store.firstAnswer(owner: owner, key: key) else { return false }
        switch SubmissionCompiler.replay(first, to: identity, key: key, digest: digest) {
        case .answer(_, let reply): send(to: identity, .submitted, reply)
        case .failed(_, let error): send(to: identity, .error, error)
        default: break
        }
        return true
    }

    private func recordAnswer(_ reply: Submitted, to request: Submit, owner: String?, digest: String?) throws {
        guard let key = request.idempotencyKey, let digest else { return }
        try store.recordFirstAnswer(owner: owner, key: key, requestSHA256: digest, reply: reply, at: Self.now)
    }

    /// A compiled batch becomes its variants' jobs, all or none (docs/api.md, "Batches").
    private func createBatch(_ jobs: [SubmissionCompiler.Compiled], for identity: Data) throws {
        // Every variant carries the batch's request key and digest.
        let (request, owner, digest) = (jobs.first?.request, jobs.first?.owner, jobs.first?.digest)
        if let request, try answeredBefore(request, owner: owner, digest: digest, identity: identity) { return }
        for job in jobs { for file in job.verified { media.remember(contentID: file.contentID, path: file.path, stat: file.stat) } }
        let shortfalls = jobs.compactMap { job in diskShortfall(for: job.spec.output).map { "variant \(job.variant ?? "?"): \($0)" } }
        guard shortfalls.isEmpty else {
            send(to: identity, .error, FarmError(.storageFull, shortfalls.joined(separator: "; ")))
            return
        }
        let batch = BatchCreation(batch: "b" + Self.newJobID().dropFirst(), pending: jobs[...])
        // Recorded before its first job: a restart cancels a batch left half made.
        apply([.persist(.batchBegun(batch.batch, at: Self.now))])
        creations.add(JobCreations.Creation(identity: identity, kind: .batch(batch)))
        continueCreations()
    }

    /// Works on the submissions being made into jobs for about `JobCreations.sliceSeconds`
    /// a turn (at least one step): a job of thousands of shards, or a batch of thousands of
    /// variants, made in one turn held the loop for tens of milliseconds, or seconds.
    func continueCreations() {
        let until = Self.uptime + JobCreations.sliceSeconds
        var first = true
        while var creation = creations.takeFirst() {
            guard first || Self.uptime < until else {
                creations.putBack(creation)
                return
            }
            first = false
            if creation.current == nil, case .batch(var batch) = creation.kind, let next = batch.pending.popFirst() {
                creation.current = begin(next, batch: batch.batch)
                creation.kind = .batch(batch)
            }
            if var pending = creation.current {
                while !pending.isWritten && (Self.uptime < until || pending.written == 0) { apply([.persist(pending.nextRows())]) }
                guard pending.isWritten else {
                    // A single job's rows go on next turn: a restart meanwhile cancels it.
                    if case .job = creation.kind, !creation.recorded {
                        apply([.persist(.batchBegun(pending.record.id, at: Self.now))])
                        creation.recorded = true
                    }
                    creation.current = pending
                    creations.putBack(creation)
                    return
                }
                creation.current = nil
                let (id, reused) = adopt(pending)
                switch creation.kind {
                case .job:
                    if creation.recorded { apply([.persist(.batchMade(id))]) }
                    answer(creation.identity, job: id, reused: reused, compiled: pending.compiled)
                    continue
                case .batch(var batch):
                    batch.variants.append(VariantJob(name: pending.compiled.variant ?? id, jobID: id))
                    batch.reused += reused
                    batch.shards += pending.compiled.spec.tasks.count
                    creation.kind = .batch(batch)
                }
            }
            guard case .batch(let batch) = creation.kind else { continue }
            if batch.pending.isEmpty {
                finishBatch(batch, for: creation.identity)
            } else {
                creations.putBack(creation)
            }
        }
    }

    private func answer(_ identity: Data, job id: String, reused: Int, compiled: SubmissionCompiler.Compiled) {
        let reply = Submitted(jobID: id, missing: [], problems: [], reused: reused, shards: compiled.spec.tasks.count)
        do {
            try recordAnswer(reply, to: compiled.request, owner: compiled.owner, digest: compiled.digest)
        } catch {
            logLimited("submit", "job \(id): its answer could not be kept for retries: \(error)")
        }
        send(to: identity, .submitted, reply)
    }

    private func finishBatch(_ creation: BatchCreation, for identity: Data) {
        apply([.persist(.batchMade(creation.batch))])
        guard let first = creation.compiled.first else { return }
        log("batch \(creation.batch): \(creation.variants.count) variants, \(creation.shards) shards", LogIDs.none)
        let reply = Submitted(jobID: nil, missing: [], problems: [], reused: creation.reused, shards: creation.shards,
                              batchID: creation.batch, variants: creation.variants)
        do {
            try recordAnswer(reply, to: first.request, owner: first.owner, digest: first.digest)
        } catch {
            logLimited("submit", "batch \(creation.batch): its answer could not be kept for retries: \(error)")
        }
        send(to: identity, .submitted, reply)
    }

    /// A compiled job's record written and its shards scheduled, before its shard rows
    /// are written (a slice a turn); it joins the scheduler once they are.
    private func begin(_ compiled: SubmissionCompiler.Compiled, batch: String?) -> JobCreations.PendingJob {
        let (request, spec) = (compiled.request, compiled.spec)
        let id = Self.newJobID()
        var record = JobStore.JobRecord(id: id, state: .queued, priority: request.priority, created: Self.now,
                                        finished: nil, session: request.session, files: request.files, paths: request.paths,
                                        settings: request.settings, totalFrames: spec.output.frames, error: nil, owner: compiled.owner,
                                        spec: compiled.encodedSpec, callback: request.callback, batch: batch, variant: compiled.variant)
        record.shardsWritten = true
        trace?.noteProbes(job: id, count: compiled.probed, seconds: compiled.probeSeconds, onWorkers: compiled.probedOnWorkers)
        apply([.persist(.createJob(record, spec.tasks))])
        let job = ScheduledJob(id: id, priority: request.priority, created: record.created, owner: compiled.owner, spec: spec,
                               paths: request.paths, pathStats: compiled.pathStats, recipeKeys: compiled.recipeKeys)
        return JobCreations.PendingJob(compiled: compiled, record: record, job: job)
    }

    /// A job whose shard rows are written joins the scheduler (its row is written: the
    /// scheduler persists nothing more), the cache's chunks linked in. Returns its id and
    /// how many of its shards the chunk cache held.
    private func adopt(_ pending: JobCreations.PendingJob) -> (id: String, reused: Int) {
        let (compiled, id) = (pending.compiled, pending.record.id)
        beginAssembly(of: pending.job)
        apply(scheduler.handle(.submitted(pending.job, nil), now: Self.now))
        let reused = reuseCachedChunks(of: id)
        log("job \(id): \(compiled.spec.output.frames) frames in \(compiled.spec.tasks.count) shards, priority \(compiled.request.priority)"
            + (compiled.variant.map { ", variant \($0) of batch \(pending.record.batch ?? "")" } ?? ""), LogIDs(job: id))
        return (id, reused)
    }

    /// The names a per-segment result holds (nothing else is ever served from it).
    static func isResultFileName(_ name: String) -> Bool {
        name.wholeMatch(of: /segment-[0-9]{3,}\.(mp4|reel\.json)/) != nil
    }

    static func newJobID() -> String {
        let stamp = String(Int(Date().timeIntervalSince1970), radix: 36)
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        return "j\(stamp)\(random)"
    }

}
