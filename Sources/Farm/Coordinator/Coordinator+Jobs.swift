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
        // A batch half made when the last run stopped is not created: all or none.
        for (batch, cancelled) in try store.abandonUnfinishedBatches(at: now) {
            log("batch \(batch) was being made when the coordinator stopped: its \(cancelled.count) job(s) made so far are cancelled",
                level: .warning)
            for id in cancelled { discardChunks(of: id) }
        }
        // Results that were being written when the last run stopped are written again.
        let results = options.stateDirectory.appendingPathComponent("results")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: results.path)) ?? [] where TemporaryOutput.isTemporary(name) {
            unlink(results.appendingPathComponent(name).path)
        }
        for record in try store.jobs(states: JobPhase.allCases.filter { !$0.isFinal }) {
            // Its spec is decoded on the lane; an older release's job is compiled again
            // on the loop when the lane finds it cannot read it (rare, once).
            let parts = ResumedJob(record: ResumedJob.Record(id: record.id, priority: record.priority, created: record.created, owner: record.owner,
                                                             paths: record.paths), sharesChunks: options.shareChunks,
                                   pathStats: verifiedStats(files: record.files, paths: record.paths),
                                   storedSpec: try store.spec(of: record.id), spec: nil, shards: try store.storedShards(of: record.id),
                                   attempts: try store.attemptCounts(job: record.id),
                                   failures: try store.failures(job: record.id).mapValues { $0.map { ResumedJob.Failure(worker: $0.worker, message: $0.message) } })
            changes.append(.closeOpenAttempts(job: record.id, reason: "coordinator restarted", at: now))
            resumingJobs[record.id] = Set(record.files.values)
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
        if case .failure(let error) = built, error is ResumedJob.OlderRelease, parts.spec == nil, resumingJobs[id] != nil {
            do {
                guard let record = try store.job(id) else { throw FarmError(.internal, "its record is gone") }
                var again = parts
                again.spec = try compiledSpec(of: record)
                build(again)
                return
            } catch {
                return resumed(parts, .failure(error))
            }
        }
        guard resumingJobs.removeValue(forKey: id) != nil else { return }
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
        if let priority = priorityWhileResuming.removeValue(forKey: id) { job.priority = priority }
        if !resumed.requeue.isEmpty { apply([.persist(.requeueAll(job: id, shards: resumed.requeue))]) }
        log("resumed job \(id): \(resumed.kept)/\(job.tasks.count) shards kept", LogIDs(job: id))
        beginAssembly(of: job)
        apply(scheduler.handle(.submitted(job, nil), now: Self.now))
        if cancelledWhileResuming.remove(id) != nil { apply(scheduler.handle(.cancel(id), now: Self.now)) }
    }

    /// The job's stored spec; a job stored by an older release (no spec, or another
    /// version) is compiled again from its session.
    private func compiledSpec(of record: JobStore.JobRecord) throws -> JobSpec {
        if let stored = try store.spec(of: record.id), let spec = try? JobSpec.decode(Data(stored.utf8)) { return spec }
        let session = try SessionDocument.decode(Data(record.session.utf8))
        let loaded = try load(session: session, files: record.files, paths: record.paths)
        log("job \(record.id): compiled again from its session (stored by an older release)", LogIDs(job: record.id))
        return try JobSpec.compile(loaded, settings: record.settings, contentIDs: record.files)
    }

    /// The session with its references resolved to files this coordinator can read (on
    /// the loop: for jobs resumed from a store of an older release).
    func load(session: Session, files: [String: String], paths: [String: String]) throws -> LoadedSession {
        SubmissionCompiler.load(session: session, files: files, paths: paths, context: submissionContext, known: media.known) {
            media.remember(contentID: $0, path: $1, stat: $2)
        }.0
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

    /// A compiled submission becomes a job: its record, its shards in the scheduler, the
    /// chunks the cache already holds in place.
    private func create(_ compiled: SubmissionCompiler.Compiled) throws {
        if try answeredBefore(compiled.request, owner: compiled.owner, digest: compiled.digest, identity: compiled.identity) { return }
        for file in compiled.verified { media.remember(contentID: file.contentID, path: file.path, stat: file.stat) }
        // Not a problem of the session: the farm's disk (507 over HTTP), nothing created.
        if let shortfall = diskShortfall(for: compiled.spec.output) {
            send(to: compiled.identity, .error, FarmError(.storageFull, shortfall))
            return
        }
        let (id, reused) = try makeJob(compiled, batch: nil)
        let reply = Submitted(jobID: id, missing: [], problems: [], reused: reused, shards: compiled.spec.tasks.count)
        try recordAnswer(reply, to: compiled.request, owner: compiled.owner, digest: compiled.digest)
        send(to: compiled.identity, .submitted, reply)
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
        creatingBatches.append(BatchCreation(identity: identity, batch: "b" + Self.newJobID().dropFirst(), pending: jobs[...]))
        continueBatches()
    }

    /// Creates the next variants' jobs of the batches being created, for about 10 ms a turn
    /// (at least one job): a batch of thousands of variants made in one turn held the loop
    /// for seconds (docs/operations.md, "Limits"). A batch is answered once all its jobs are.
    func continueBatches() {
        let until = Self.uptime + 0.010
        while !creatingBatches.isEmpty {
            var creation = creatingBatches.removeFirst()
            // Recorded with its first job: a restart cancels a batch left half made.
            if creation.variants.isEmpty { apply([.persist(.batchBegun(creation.batch, at: Self.now))]) }
            do {
                repeat {
                    guard let job = creation.pending.popFirst() else { break }
                    let (id, count) = try makeJob(job, batch: creation.batch)
                    creation.variants.append(VariantJob(name: job.variant ?? id, jobID: id))
                    creation.reused += count
                    creation.shards += job.spec.tasks.count
                } while Self.uptime < until
            } catch {
                // All or none: the variants made so far are cancelled.
                for made in creation.variants { apply(scheduler.handle(.cancel(made.jobID), now: Self.now)) }
                apply([.persist(.batchMade(creation.batch))])
                logLimited("submit", "batch \(creation.batch) could not be created: \(error)")
                send(to: creation.identity, .error, FarmError(FarmError.from(error).code, publicText("\(error)")))
                continue
            }
            guard creation.pending.isEmpty else {
                creatingBatches.insert(creation, at: 0)
                return
            }
            finishBatch(creation)
        }
    }

    private func finishBatch(_ creation: BatchCreation) {
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
        send(to: creation.identity, .submitted, reply)
    }

    /// Creates a compiled job; returns its id and how many of its shards the chunk cache held.
    private func makeJob(_ compiled: SubmissionCompiler.Compiled, batch: String?) throws -> (id: String, reused: Int) {
        let (request, spec) = (compiled.request, compiled.spec)
        let id = Self.newJobID()
        var record = JobStore.JobRecord(id: id, state: .queued, priority: request.priority, created: Self.now,
                                        finished: nil, session: request.session, files: request.files, paths: request.paths,
                                        settings: request.settings, totalFrames: spec.output.frames, error: nil, owner: compiled.owner,
                                        spec: compiled.encodedSpec, callback: request.callback, batch: batch, variant: compiled.variant)
        record.shardTexts = compiled.encodedTasks
        let job = ScheduledJob(id: id, priority: request.priority, created: record.created, owner: compiled.owner, spec: spec,
                               paths: request.paths, pathStats: verifiedStats(files: request.files, paths: request.paths),
                               recipeKeys: compiled.recipeKeys)
        trace?.noteProbes(job: id, count: compiled.probed, seconds: compiled.probeSeconds, onWorkers: compiled.probedOnWorkers)
        beginAssembly(of: job)
        apply(scheduler.handle(.submitted(job, record), now: Self.now))
        let reused = reuseCachedChunks(of: id)
        let count = spec.tasks.count
        if reused > 0 { log("job \(id): \(reused) of \(count) shards reused from the chunk cache", LogIDs(job: id)) }
        log("job \(id): \(spec.output.frames) frames in \(count) shards, priority \(request.priority)"
            + (compiled.variant.map { ", variant \($0) of batch \(batch ?? "")" } ?? ""), LogIDs(job: id))
        return (id, reused)
    }

    /// Stats of the paths the coordinator verified (reference → stat), for workers that
    /// see the same files.
    func verifiedStats(files: [String: String], paths: [String: String]) -> [String: FileStat] {
        paths.reduce(into: [:]) { stats, entry in
            if let contentID = files[entry.key], let stat = media.verifiedStat(of: entry.value, contentID: contentID) {
                stats[entry.key] = stat
            }
        }
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
