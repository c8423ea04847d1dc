import Foundation
import Logging
import RenderEngine
import SessionKit
import Testing
@testable import Farm

/// The scheduler as a value on a fake clock: events in, effects out, no sockets, no disk,
/// no sleeps (docs/architecture.md, "The scheduler").
struct SchedulerTests {
    /// A scheduler with a clock the test moves, and what it asked the shell to do.
    struct Farm {
        var scheduler = Scheduler(limits: Scheduler.Limits(maxFailuresPerShard: 3, backupAfterSeconds: 2, workerTimeoutSeconds: 3))
        var clock = 1000.0
        var effects: [Scheduler.Effect] = []

        static func peer(_ name: String) -> PeerID { Data(name.utf8) }

        @discardableResult
        mutating func on(_ event: Scheduler.Event) -> [Scheduler.Effect] {
            let out = scheduler.handle(event, now: clock)
            effects += out
            return out
        }

        mutating func join(_ name: String, slots: Int = 1, encoders: [String: String]? = nil, pools: Set<String> = []) {
            on(.hello(Self.peer(name), workerID: name, host: "h", slots: slots, encoders: encoders, pools: pools))
        }

        /// A job of `shards` shards; `keys` are their recipe keys (none: unknown).
        mutating func submit(_ id: String, shards: Int, priority: Int = 0, keys: [String] = [], owner: String? = nil, pool: String? = nil) {
            let tasks = (0..<shards).map { i in
                ShardTask(kind: .video, segment: 0, startFrame: Int64(i) * 10, endFrame: Int64(i + 1) * 10, outputStartFrame: Int64(i) * 10)
            }
            clock += 0.001
            var spec = SpecFixtures.job(tasks: tasks, files: ["a": "sha256:m\(id)"])
            spec.pool = pool
            on(.submitted(ScheduledJob(id: id, priority: priority, created: clock, owner: owner, spec: spec, recipeKeys: keys), nil))
        }

        /// Shards handed out by one tick: (worker, job, shard, attempt).
        mutating func tick() -> [(worker: String, key: AttemptID)] {
            on(.tick).compactMap {
                guard case .send(let peer, .shard(let a)) = $0 else { return nil }
                return (String(decoding: peer, as: UTF8.self), AttemptID(jobID: a.jobID, shard: a.shard, attempt: a.attempt))
            }
        }

        /// A worker's chunk that stores fine.
        mutating func deliver(_ key: AttemptID, by name: String) {
            let out = on(.chunk(Self.peer(name), key))
            if out.contains(where: { if case .storeChunk = $0 { true } else { false } }) {
                on(.chunkStored(Self.peer(name), key, sha256: "sha", peakRSSKB: nil))
            }
        }

        func state(_ job: String, _ shard: Int) -> ShardState? { scheduler.jobs[job]?.state[shard] }
        func phase(_ job: String) -> JobPhase? { scheduler.jobs[job]?.phase }
        func busy(_ name: String) -> Int? { scheduler.workers[Self.peer(name)]?.running.count }
        var logs: [String] { effects.compactMap { if case .log(_, let l, _) = $0 { l } else if case .logLimited(_, let l, _) = $0 { l } else { nil } } }
        var finalPhases: [String: JobPhase] {
            var out: [String: JobPhase] = [:]
            for case .persist(.jobPhase(let job, let phase, _, _)) in effects where phase.isFinal { out[job] = phase }
            return out
        }
        func jobError(_ job: String) -> String? { jobFailure(job)?.message }
        func jobFailure(_ job: String) -> FarmError? {
            effects.lazy.compactMap { if case .persist(.jobPhase(job, _, let error?, _)) = $0 { error } else { nil } }.first
        }
    }

    /// docs/rendering.md, "Twins": a shard whose recipe is being rendered (in its own job
    /// or another) waits for that chunk; the twins of a finished shard are named for the
    /// shell to fill; a failed render frees its twins to render.
    @Test func twinsWaitForTheShardRenderingTheirRecipe() {
        var farm = Farm()
        farm.join("w1", slots: 8)
        farm.submit("a", shards: 3, priority: 2, keys: ["intro", "a1", "outro"])
        farm.submit("b", shards: 3, priority: 1, keys: ["intro", "b1", "outro"])
        farm.submit("c", shards: 2, keys: ["intro", "intro"])
        let given = Set(farm.tick().map { "\($0.key.jobID)/\($0.key.shard)" })
        #expect(given == ["a/0", "a/1", "a/2", "b/1"])
        #expect(farm.state("b", 0) == .queued && farm.state("c", 1) == .queued)
        let twins = farm.scheduler.twins(ofShard: 0, job: "a").map { "\($0.job)/\($0.shard)" }
        #expect(twins == ["b/0", "c/0", "c/1"])
        farm.deliver(AttemptID(jobID: "a", shard: 2, attempt: 1), by: "w1")
        #expect(farm.scheduler.twins(ofShard: 2, job: "a").map { "\($0.job)/\($0.shard)" } == ["b/2"])
        farm.on(.reused("b", chunks: [(2, "sha")]))
        #expect(farm.state("b", 2) == .done)
        // The intro fails: it is rendered again once, and its twins still wait.
        farm.on(.failed(Farm.peer("w1"), AttemptID(jobID: "a", shard: 0, attempt: 1), code: .renderFailed, reason: "boom"))
        #expect(farm.tick().map { "\($0.key.jobID)/\($0.key.shard)" } == ["a/0"])
        farm.on(.cancel("a"))
        // Its job cancelled, the intro is no longer in flight: one twin renders it.
        #expect(farm.tick().map { "\($0.key.jobID)/\($0.key.shard)" } == ["b/0"])
    }

    /// docs/operations.md, "Logs": a line about an attempt names its job, shard, attempt
    /// and worker as fields, at a level an operator can filter on.
    @Test func logLinesCarryTheIdsOfWhatTheyConcern() {
        var farm = Farm()
        farm.join("w1")
        farm.submit("j", shards: 1)
        let given = farm.tick()
        #expect(given.count == 1)
        guard let key = given.first?.key else { return }
        farm.on(.failed(Farm.peer("w1"), key, code: .renderFailed, reason: "boom"))
        let failure = farm.effects.compactMap { effect -> (Logger.Level, LogIDs)? in
            guard case .log(let level, let line, let ids) = effect, line.contains("failed on w1: boom") else { return nil }
            return (level, ids)
        }
        #expect(failure.count == 1)
        #expect(failure.first?.0 == .warning)
        #expect(failure.first?.1 == LogIDs(job: "j", shard: 0, attempt: 1, worker: "w1"))
        let joined = farm.effects.contains {
            if case .log(.info, let line, LogIDs(worker: "w1")) = $0 { line.contains("joined") } else { false }
        }
        #expect(joined)
    }

    @Test func resultsFromPeersThatDoNotHoldTheAttemptAreRefusedAndChangeNothing() {
        var farm = Farm()
        farm.join("a")
        farm.submit("j", shards: 2)
        let given = farm.tick()
        #expect(given.count == 1)
        let key = given[0].key
        // A stranger (never said hello) and another worker both claim the attempt.
        let stranger = farm.on(.chunk(Farm.peer("x"), key))
        #expect(stranger.contains { if case .send(_, .refused(let why)) = $0 { why.code == .unknownWorker } else { false } })
        #expect(!stranger.contains { if case .storeChunk = $0 { true } else { false } })
        farm.join("b")
        let other = farm.on(.failed(Farm.peer("b"), key, code: .renderFailed, reason: "boom"))
        #expect(other.allSatisfy { if case .persist = $0 { false } else { true } })
        #expect(farm.on(.chunk(Farm.peer("b"), key)).allSatisfy { if case .storeChunk = $0 { false } else { true } })
        #expect(farm.state("j", key.shard) == .running && farm.busy("a") == 1)
        #expect(farm.scheduler.jobs["j"]?.failures.isEmpty == true)
        // The holder's chunk is taken.
        farm.deliver(key, by: "a")
        #expect(farm.state("j", key.shard) == .done && farm.busy("a") == 0)
    }

    @Test func aPeerThatCannotBeSentToIsDroppedAtTheNextTickAndOthersGoOn() {
        var farm = Farm()
        farm.join("a")
        farm.join("b")
        farm.submit("j", shards: 4)
        let first = farm.tick()
        #expect(Set(first.map(\.worker)) == ["a", "b"])
        let aKey = first.first { $0.worker == "a" }!.key
        farm.on(.sendFailed(Farm.peer("a")))
        // What a sent before it left still counts, in the same turn.
        farm.deliver(aKey, by: "a")
        #expect(farm.state("j", aKey.shard) == .done)
        let bKey = first.first { $0.worker == "b" }!.key
        farm.deliver(bKey, by: "b")
        let next = farm.tick()
        #expect(farm.scheduler.workers[Farm.peer("a")] == nil)
        #expect(next.map(\.worker) == ["b"])
    }

    @Test func aChunkTheDiskRefusesFailsTheJobWithTheReasonAndLeavesNothingRunning() {
        var farm = Farm()
        farm.join("a", slots: 2)
        farm.submit("j", shards: 3)
        let given = farm.tick()
        #expect(given.count == 2)
        let out = farm.on(.chunkNotStored(Farm.peer("a"), given[0].key, reason: "cannot store the chunk in /state/chunks/j: No space left on device"))
        #expect(farm.scheduler.jobs["j"] == nil)
        #expect(farm.finalPhases["j"] == .failed)
        #expect(farm.jobError("j")?.contains("No space left") == true && farm.jobFailure("j")?.code == .ioFailed)
        // The other running attempt is stopped on its worker; its slot is freed when it confirms.
        #expect(out.contains { if case .send(_, .cancelShard("j", given[1].key.shard)) = $0 { true } else { false } })
        #expect(out.contains { if case .discardChunks("j") = $0 { true } else { false } })
        #expect(farm.busy("a") == 1)
        farm.on(.failed(Farm.peer("a"), given[1].key, code: .renderFailed, reason: "cancelled"))
        #expect(farm.busy("a") == 0)
    }

    @Test func cancelFreesExactlyTheSlotsTheWorkerConfirms() {
        var farm = Farm()
        farm.join("a", slots: 2)
        farm.submit("j", shards: 4)
        farm.submit("k", shards: 2)
        let given = farm.tick()
        #expect(given.count == 2)
        let cancelled = farm.on(.cancel("j"))
        let stops = cancelled.filter { if case .send(_, .cancelShard("j", _)) = $0 { true } else { false } }
        #expect(stops.count == given.filter { $0.key.jobID == "j" }.count)
        // Nothing is handed out until the worker says its renders stopped.
        #expect(farm.busy("a") == 2)
        let jKeys = given.filter { $0.key.jobID == "j" }.map(\.key)
        #expect(given.map(\.key.jobID).sorted() == ["j", "k"] && farm.tick().isEmpty)
        farm.on(.failed(Farm.peer("a"), jKeys[0], code: .renderFailed, reason: "cancelled"))
        let after = farm.tick()
        #expect(after.count == 1 && after[0].key.jobID == "k")
        #expect(farm.finalPhases["j"] == .cancelled)
    }

    @Test func higherPriorityGoesFirstAndEqualJobsShareWorkers() {
        var farm = Farm()
        farm.submit("low", shards: 4, priority: 0)
        farm.submit("high", shards: 4, priority: 5)
        farm.join("a", slots: 2)
        #expect(farm.tick().map(\.key.jobID) == ["high", "high"])
        var fair = Farm()
        fair.submit("x", shards: 4)
        fair.submit("y", shards: 4)
        fair.join("a", slots: 4)
        let given = fair.tick().map(\.key.jobID)
        #expect(given.filter { $0 == "x" }.count == 2 && given.filter { $0 == "y" }.count == 2)
    }

    /// Followers of a job hear of its end the moment its assembly ends: storing the last
    /// chunk tells them of the assembly without forgetting them (a final notice there left
    /// every `reel watch` and `reel render` waiting for its 2-s time-out to ask again).
    @Test func followersHearOfTheEndWhenTheAssemblyEndsNotBefore() {
        var farm = Farm()
        farm.submit("j", shards: 1)
        farm.join("a")
        let given = farm.tick()
        var watchers = JobWatchers()
        watchers.add(SchedulerTests.Farm.peer("client"), to: "j")
        farm.clock += 1
        let stored = farm.on(.chunk(SchedulerTests.Farm.peer("a"), given[0].key))
            + farm.on(.chunkStored(SchedulerTests.Farm.peer("a"), given[0].key, sha256: "sha", peakRSSKB: nil))
        #expect(farm.phase("j") == .assembling)
        for case .notify("j", let final) in stored {
            #expect(!final, "the job is not over while it assembles")
            _ = watchers.due("j", now: farm.clock, final: final)
        }
        farm.clock += 0.05   // within the progress interval: only a final notice goes out
        let ended = farm.on(.assembled("j", error: nil))
        let finals = ended.compactMap { if case .notify("j", let final) = $0 { final } else { nil } }
        #expect(finals == [true])
        #expect(watchers.due("j", now: farm.clock, final: true) == [SchedulerTests.Farm.peer("client")])
    }

    /// A new priority counts from the next dispatch, is stored, and tells watchers.
    @Test func aJobGivenAHigherPriorityGoesFirstFromTheNextDispatch() {
        var farm = Farm()
        farm.submit("first", shards: 4, priority: 1)
        farm.submit("second", shards: 4, priority: 0)
        farm.join("a", slots: 1)
        #expect(farm.tick().map(\.key.jobID) == ["first"])
        let out = farm.on(.reprioritize("second", priority: 3))
        #expect(out.contains { if case .persist(.jobPriority("second", 3)) = $0 { true } else { false } })
        #expect(out.contains { if case .notify("second", final: false) = $0 { true } else { false } })
        guard let running = farm.scheduler.jobs["first"]?.running.first else { Issue.record("nothing running"); return }
        farm.deliver(AttemptID(jobID: "first", shard: running.key, attempt: 1), by: "a")
        #expect(farm.tick().map(\.key.jobID) == ["second"])
        #expect(farm.on(.reprioritize("gone", priority: 9)).isEmpty)
    }

    @Test func aShardThatFailsOnThreeWorkersFailsTheJobWithEveryMessage() {
        var farm = Farm()
        for name in ["a", "b", "c", "d"] { farm.join(name) }
        farm.submit("j", shards: 1)
        var failedOn: [String] = []
        for round in 1...3 {
            let given = farm.tick()
            #expect(given.count == 1)
            // A shard goes to a worker it has not failed on.
            #expect(!failedOn.contains(given[0].worker))
            failedOn.append(given[0].worker)
            farm.on(.failed(Farm.peer(given[0].worker), given[0].key, code: .renderFailed, reason: "decoder error \(round)"))
        }
        #expect(farm.finalPhases["j"] == .failed)
        let error = farm.jobError("j") ?? ""
        #expect(error.contains("failed 3 times") && error.contains("decoder error 1") && error.contains("decoder error 3"))
        // The job fails with the code its shards failed with.
        #expect(farm.jobFailure("j")?.code == .renderFailed)
    }

    @Test func handedBackShardsAreRequeuedAndNotCountedAsFailures() {
        var farm = Farm()
        farm.join("a")
        farm.submit("j", shards: 1)
        let key = farm.tick()[0].key
        farm.on(.heartbeat(Farm.peer("a"), draining: true))
        farm.on(.failed(Farm.peer("a"), key, code: .handedBack, reason: "handed back"))
        #expect(farm.state("j", 0) == .queued && farm.scheduler.jobs["j"]?.failures.isEmpty == true)
        #expect(farm.tick().isEmpty)   // a draining worker takes nothing
        farm.join("b")
        #expect(farm.tick().map(\.worker) == ["b"])
    }

    @Test func aSlowShardIsBackedUpAndTheFirstChunkWins() {
        var farm = Farm()
        farm.join("a")
        farm.submit("j", shards: 1)
        let first = farm.tick()[0].key
        farm.join("b")
        #expect(farm.tick().isEmpty)   // not slow yet
        // No shard of the job has finished: a copy waits twice the 2 s threshold.
        farm.clock += 2.5
        farm.on(.heard(Farm.peer("a")))
        farm.on(.heard(Farm.peer("b")))
        #expect(farm.tick().isEmpty)
        farm.clock += 2
        farm.on(.heard(Farm.peer("a")))
        farm.on(.heard(Farm.peer("b")))
        let backup = farm.tick()
        #expect(backup.map(\.worker) == ["b"] && backup[0].key.shard == first.shard && backup[0].key.attempt == 2)
        farm.deliver(backup[0].key, by: "b")
        #expect(farm.state("j", 0) == .done)
        #expect(farm.effects.contains { if case .send(Farm.peer("a"), .cancelShard("j", 0)) = $0 { true } else { false } })
        #expect(farm.effects.contains { if case .persist(.endAttempt(first, .beaten, _, _)) = $0 { true } else { false } })
        #expect(farm.effects.contains { if case .assemble("j") = $0 { true } else { false } })
        // The loser's late chunk frees its slot and is not stored.
        #expect(farm.on(.chunk(Farm.peer("a"), first)).isEmpty)
        #expect(farm.busy("a") == 0)
    }

    /// On a farm with more idle slots than a job has shards, every shard starts at once
    /// and none finishes by the first threshold: at most a tenth of the shards (here 2 of
    /// 20) get a copy at once, not all of them (docs/scale.md, "Backup copies").
    @Test func atMostATenthOfAJobsShardsAreCopiedAtOnce() {
        var farm = Farm()
        for i in 0..<40 { farm.join("w\(i)") }
        farm.submit("j", shards: 20)
        #expect(farm.tick().count == 20)
        farm.clock += 4.5
        for i in 0..<40 { farm.on(.heard(Farm.peer("w\(i)"))) }
        let copies = farm.tick()
        #expect(copies.count == 2 && copies.allSatisfy { $0.key.attempt == 2 }, "\(copies)")
        // A copy that wins frees room for the next.
        farm.deliver(copies[0].key, by: copies[0].worker)
        #expect(farm.tick().count == 1)
    }

    @Test func aBackupWaitsForOneAndAHalfTimesWhatTheJobsShardsTake() {
        var farm = Farm()
        farm.join("a")
        farm.join("b")
        farm.submit("j", shards: 2)
        let given = farm.tick()
        #expect(given.count == 2)
        // a's shard takes 4 s; b's keeps running.
        farm.clock += 4
        for name in ["a", "b"] { farm.on(.heard(Farm.peer(name))) }
        let fast = try? #require(given.first { $0.worker == "a" })
        if let fast { farm.deliver(fast.key, by: "a") }
        farm.clock += 1.5   // b's shard: 5.5 s, under 1.5 × 4 s
        for name in ["a", "b"] { farm.on(.heard(Farm.peer(name))) }
        #expect(farm.tick().isEmpty)
        farm.clock += 1   // 6.5 s: a straggler
        for name in ["a", "b"] { farm.on(.heard(Farm.peer(name))) }
        let backup = farm.tick()
        #expect(backup.map(\.worker) == ["a"] && backup.first?.key.attempt == 2)
    }

    /// docs/operations.md, "Scaling": a straggler whose worker reports a pace that ends it
    /// before a fresh copy would is not copied (its media are not sent twice); one that
    /// keeps too slow a pace is, once past the threshold.
    @Test func aStragglerThatWillEndBeforeACopyIsNotCopied() {
        var farm = Farm()
        farm.join("a")
        farm.join("b")
        farm.submit("j", shards: 2)   // 10 frames a shard
        let given = farm.tick()
        farm.clock += 4
        let fast = given.first { $0.worker == "a" }!, slow = given.first { $0.worker == "b" }!
        farm.on(.heartbeat(Farm.peer("b"), draining: false, framesDone: [slow.key: 8]))
        farm.deliver(fast.key, by: "a")   // a fresh attempt takes 4 s
        farm.clock += 2.5   // 6.5 s: past 1.5 × 4 s, but at 2 frames a second its 2 frames take 1 s
        for name in ["a", "b"] { farm.on(.heard(Farm.peer(name))) }
        #expect(farm.tick().isEmpty, "it ends before a copy would")
        // Another job's straggler whose pace says 10 s more: copied.
        farm.deliver(slow.key, by: "b")
        farm.submit("k", shards: 2)
        let next = farm.tick()
        #expect(next.count == 2)
        farm.clock += 4
        let kFast = next.first { $0.worker == "a" }!, kSlow = next.first { $0.worker == "b" }!
        farm.on(.heartbeat(Farm.peer("b"), draining: false, framesDone: [kSlow.key: 2]))
        farm.deliver(kFast.key, by: "a")
        farm.clock += 2.5
        for name in ["a", "b"] { farm.on(.heard(Farm.peer(name))) }
        let copy = farm.tick()
        #expect(copy.map(\.worker) == ["a"] && copy.first?.key == AttemptID(jobID: "k", shard: kSlow.key.shard, attempt: 2), "\(copy)")
    }

    /// docs/operations.md, "Scaling": before any shard of its kind has finished, a
    /// straggler that reports a pace is not copied — a fresh attempt would take its whole
    /// run again — while one that has encoded nothing by twice the threshold (stuck) is.
    @Test func aLoneStragglerWithAPaceIsNotCopiedButAStuckOneIs() {
        var farm = Farm()
        farm.join("a")
        farm.join("b")
        farm.submit("j", shards: 1)   // 10 frames
        let given = farm.tick()
        let running = given.first!
        farm.clock += 5   // past twice the 2-s threshold
        farm.on(.heartbeat(Farm.peer(running.worker), draining: false, framesDone: [running.key: 3]))
        for name in ["a", "b"] { farm.on(.heard(Farm.peer(name))) }
        #expect(farm.tick().isEmpty, "copied though its pace ends it before a fresh attempt would")
        farm.deliver(running.key, by: running.worker)
        farm.submit("k", shards: 1)
        let stuck = farm.tick().first!
        farm.clock += 5
        for name in ["a", "b"] { farm.on(.heard(Farm.peer(name))) }
        let copy = farm.tick()
        #expect(copy.count == 1 && copy.first?.key == AttemptID(jobID: "k", shard: stuck.key.shard, attempt: 2), "\(copy)")
    }

    /// docs/operations.md, "A farm by hand": a farm without backup copies (`reel render`'s,
    /// whose workers share one machine) never copies, not even a stuck shard far past any
    /// threshold; the same straggler on a farm with copies is copied.
    @Test func aFarmWithoutBackupCopiesNeverCopiesAStuckShard() {
        for threshold in [nil, 2.0] {
            var farm = Farm()
            farm.scheduler = Scheduler(limits: Scheduler.Limits(maxFailuresPerShard: 3, backupAfterSeconds: threshold, workerTimeoutSeconds: 3))
            farm.join("a")
            farm.join("b")
            farm.submit("j", shards: 1)
            let stuck = farm.tick().first!
            farm.clock += 60
            for name in ["a", "b"] { farm.on(.heard(Farm.peer(name))) }
            let copies = farm.tick()
            if threshold == nil {
                #expect(copies.isEmpty, "copied with copies off: \(copies)")
            } else {
                #expect(copies.first?.key == AttemptID(jobID: "j", shard: stuck.key.shard, attempt: 2), "\(copies)")
            }
        }
    }

    /// docs/operations.md, "Scaling": of two idle workers, the copy of a straggler goes to
    /// the one whose cache holds the blocks the straggler read, whichever comes first.
    @Test func aBackupCopyGoesToAnIdleWorkerThatHoldsTheStragglersMedia() throws {
        var farm = Farm()
        let spec = try SpecFixtures.clipJob()
        farm.join("slow", slots: spec.tasks.count)
        farm.on(.submitted(ScheduledJob(id: "j", priority: 0, created: farm.clock, spec: spec), nil))
        let given = farm.tick()
        // All but its last video shard end at once: that one is the straggler.
        let straggler = try #require(given.last?.key)
        for (_, key) in given.dropLast() { farm.deliver(key, by: "slow") }
        let medium = try #require(spec.files["a.mp4"]?.contentID)
        farm.on(.mediaSent(Farm.peer("slow"), contentID: medium, range: 0..<65_536))
        farm.on(.mediaSent(Farm.peer("slow"), contentID: medium, range: 65_536..<131_072))
        farm.join("a-empty")   // first in dispatch order
        farm.join("b-holder")
        farm.on(.mediaSent(Farm.peer("b-holder"), contentID: medium, range: 0..<100_000))
        farm.clock += 4.5
        for name in ["slow", "a-empty", "b-holder"] { farm.on(.heard(Farm.peer(name))) }
        let copy = farm.tick()
        #expect(copy.map(\.worker) == ["b-holder"] && copy.first?.key == AttemptID(jobID: "j", shard: straggler.shard, attempt: 2), "\(copy)")
        #expect(farm.scheduler.jobs["j"]?.running[straggler.shard]?[1]?.read[medium]?.count == 131_072)
        #expect(spec.tasks[straggler.shard].kind == .video)
    }

    /// A job's audio piece finishing in a fraction of a second does not make its video
    /// shards stragglers: each kind is measured against its own (video per frame).
    @Test func aQuickAudioPieceDoesNotMakeEveryVideoShardAStraggler() throws {
        var farm = Farm()
        let spec = try SpecFixtures.clipJob()
        for name in ["a", "b", "c", "d", "e"] { farm.join(name) }
        farm.on(.submitted(ScheduledJob(id: "j", priority: 0, created: farm.clock, spec: spec), nil))
        let given = farm.tick()
        #expect(given.count == spec.tasks.count && spec.tasks.count >= 3)
        farm.clock += 0.2
        let audio = try #require(given.first { spec.tasks[$0.key.shard].kind == .audio })
        farm.deliver(audio.key, by: audio.worker)
        farm.clock += 2.5   // past the 2-s minimum, and more than 1.5 × the audio piece
        for peer in farm.scheduler.workers.keys { farm.on(.heard(peer)) }
        #expect(farm.tick().isEmpty, "no video shard has finished: the video's threshold is still 4 s")
    }

    @Test func heldBytesMergeAndOverlap() {
        var held = HeldBytes()
        for range in [10..<20, 30..<40, 20..<25, 0..<5, 38..<50, 5..<10] { held.insert(range) }
        #expect(held.ranges == [0..<25, 30..<50])
        var other = HeldBytes()
        other.insert(22..<33)
        other.insert(45..<100)
        #expect(held.overlap(other) == 3 + 3 + 5 && other.overlap(held) == 11)
        #expect(held.count == 45)
    }

    @Test func aJobsShardsGoOnlyToWorkersWhoseEncoderAgreesWithItsFirst() {
        var farm = Farm()
        farm.join("a", encoders: ["h264": "x1"])
        farm.submit("j", shards: 4)
        #expect(farm.tick().map(\.worker) == ["a"])          // a pins the job to its encoder
        farm.join("b", encoders: ["h264": "x2"])             // another encoder build: never given j
        farm.join("c", encoders: ["hevc": "h1"])             // no H.264 encoder at all
        farm.join("d", encoders: ["h264": "x1"])             // agrees with a
        let next = farm.tick()
        #expect(next.map(\.worker) == ["d"], "\(next)")
        #expect(farm.busy("b") == 0 && farm.busy("c") == 0)
        // With only disagreeing workers left, the job waits and says why.
        for name in ["a", "d"] { farm.on(.sendFailed(Farm.peer(name))) }
        _ = farm.tick()
        #expect(farm.logs.contains { $0.contains("job j waits: no connected worker whose h264 encoder agrees with its chunks' (fingerprint x1)") },
                "\(farm.logs.suffix(3))")
    }

    @Test func aSilentWorkersShardsGoBackToTheQueue() {
        var farm = Farm()
        farm.join("a", slots: 2)
        farm.submit("j", shards: 2)
        let given = farm.tick()
        farm.clock += 2
        farm.join("b", slots: 2)
        #expect(farm.tick().isEmpty)
        farm.clock += 1.5   // a: 3.5 s silent, b: 1.5 s
        let requeued = farm.tick()
        #expect(farm.scheduler.workers[Farm.peer("a")] == nil)
        #expect(Set(requeued.map(\.key.shard)) == Set(given.map(\.key.shard)) && requeued.allSatisfy { $0.worker == "b" })
        let lost = farm.effects.filter { if case .persist(.endAttempt(_, .lost, _, _)) = $0 { true } else { false } }
        #expect(lost.count == 2)
    }

    @Test func dispatchWaitsWhilePausedAndResumesAfter() {
        var farm = Farm()
        farm.join("a")
        farm.submit("j", shards: 1)
        farm.on(.pause(.diskFull, detail: "the disk of /state has 10 bytes free"))
        farm.on(.pause(.storeUnwritable, detail: "the job store cannot be written"))
        #expect(farm.tick().isEmpty)
        #expect(farm.scheduler.paused == DispatchPause(causes: [.storeUnwritable, .diskFull],
                                                      message: "the job store cannot be written; the disk of /state has 10 bytes free"))
        farm.on(.resume(.diskFull))
        #expect(farm.tick().isEmpty)   // one cause still holds
        farm.on(.resume(.storeUnwritable))
        #expect(farm.tick().count == 1)
    }

    /// A chunk rendered for the coordinator before (a leader that died, or this one before
    /// a restart) is taken if its shard waits in the queue; a shard given out since, or an
    /// attempt no coordinator gave out, keeps what it has (docs/operations.md, "A standby
    /// coordinator").
    @Test func aChunkRenderedForTheCoordinatorBeforeIsTakenIfItsShardWaits() {
        var farm = Farm()
        farm.submit("j", shards: 3)
        // As resumed: attempts 1 of shards 0 and 1 were given out by the coordinator before.
        var job = farm.scheduler.jobs["j"]!
        job.nextAttempt = [0: 1, 1: 1]
        farm.on(.submitted(job, nil))
        farm.join("a", slots: 1)
        let taken = farm.on(.chunk(Farm.peer("a"), AttemptID(jobID: "j", shard: 0, attempt: 1)))
        #expect(taken.contains { if case .storeChunk = $0 { true } else { false } })
        #expect(taken.contains { if case .persist(.startAttempt(let key, worker: "a", at: _)) = $0 { key.shard == 0 } else { false } })
        farm.on(.chunkStored(Farm.peer("a"), AttemptID(jobID: "j", shard: 0, attempt: 1), sha256: "sha", peakRSSKB: nil))
        #expect(farm.state("j", 0) == .done && farm.busy("a") == 0)
        // An attempt no coordinator gave out is not taken.
        let forged = farm.on(.chunk(Farm.peer("a"), AttemptID(jobID: "j", shard: 2, attempt: 1)))
        #expect(!forged.contains { if case .storeChunk = $0 { true } else { false } })
        #expect(farm.state("j", 2) == .queued)
        // Shard 1 is given out again before the old chunk comes: the new attempt keeps it.
        farm.join("b", slots: 1)
        let given = farm.tick()
        #expect(given.contains { $0.key.shard == 1 && $0.key.attempt == 2 })
        let late = farm.on(.chunk(Farm.peer("a"), AttemptID(jobID: "j", shard: 1, attempt: 1)))
        #expect(!late.contains { if case .storeChunk = $0 { true } else { false } })
        #expect(farm.state("j", 1) == .running)
    }

    @Test func aResumedJobWhoseShardsAreAllDoneIsAssembled() {
        var farm = Farm()
        farm.submit("j", shards: 1)
        var job = farm.scheduler.jobs["j"]!
        job.set(0, .done, by: .worker("a"))
        let out = farm.on(.submitted(job, nil))
        #expect(out.contains { if case .assemble("j") = $0 { true } else { false } })
        #expect(farm.phase("j") == .assembling)
        farm.on(.assembled("j", error: nil))
        #expect(farm.finalPhases["j"] == .done && farm.scheduler.jobs["j"] == nil)
    }
}

/// The disk budget a submission is checked against.
struct StorageBudgetTests {
    @Test func aJobNeedsTwiceItsEncodedSizeAndTheMinimumStaysFree() {
        let output = RenderFormat(width: 1920, height: 1080, frameDuration: Rational(1, 30)!, frames: 1800)
        // 1920×1080×1800 px at 1/4 bit, plus 60 s of 256 kbit/s audio, twice.
        let expected: Int64 = 2 * (1920 * 1080 * 1800 / 32 + 60 * 32_000)
        #expect(StorageBudget.expectedBytes(output) == expected)
        #expect(StorageBudget.shortfall(free: expected + 100, needed: expected, keep: 100, directory: "/s") == nil)
        let short = StorageBudget.shortfall(free: expected + 99, needed: expected, keep: 100, directory: "/s") ?? ""
        #expect(short.contains("/s has \(expected + 99) bytes free") && short.contains("needs about \(expected)"))
    }
}

extension SchedulerTests {
    /// A tick gives out at most `dispatchesPerTick` shards, so a hundred idle workers and a
    /// new job of thousands of shards do not hold the loop (docs/operations.md, "Loop
    /// lag"); it says more may go, and the next ticks fill every slot, each shard once.
    @Test func aTickGivesOutItsMostAndTheNextTicksTheRest() {
        var farm = Farm()
        for i in 0..<60 { farm.join("w\(i)", slots: 2) }
        farm.submit("big", shards: 500)
        let cap = farm.scheduler.limits.dispatchesPerTick
        var given: [[(worker: String, key: AttemptID)]] = []
        repeat { given.append(farm.tick()) } while farm.scheduler.moreToDispatch && given.count < 20
        let ticks = (120 + cap - 1) / cap
        #expect(given.map(\.count) == Array(repeating: cap, count: ticks - 1) + [120 - (ticks - 1) * cap])
        #expect(!farm.scheduler.moreToDispatch)
        let all = given.flatMap { $0 }
        #expect(Set(all.map(\.key.shard)).count == 120)
        #expect((0..<60).allSatisfy { farm.busy("w\($0)") == 2 })
        #expect(farm.tick().isEmpty && !farm.scheduler.moreToDispatch)
    }
}

/// The per-turn message budget on a fake clock.
struct PeerBudgetTests {
    @Test func aFloodingPeerIsCutOffForAWhileAndOthersAreNot() {
        var budget = PeerBudget(messagesPerTurn: 3, cutOffSeconds: 60)
        let flooder = Data("f".utf8), worker = Data("w".utf8)
        #expect((0..<3).map { _ in budget.admit(flooder, now: 0) } == [.accept, .accept, .accept])
        #expect(budget.admit(worker, now: 0) == .accept)
        #expect(budget.admit(flooder, now: 0) == .cutOff)
        #expect(budget.admit(flooder, now: 0) == .ignore)
        budget.newTurn()
        // Cut off across turns, until the time is up.
        #expect(budget.admit(flooder, now: 59.9) == .ignore && budget.isCutOff(flooder, now: 59.9))
        #expect(budget.admit(worker, now: 59.9) == .accept)
        #expect(budget.admit(flooder, now: 60) == .accept && !budget.isCutOff(flooder, now: 60))
        // A steady peer within its budget every turn is never cut off.
        for turn in 0..<100 {
            budget.newTurn()
            for _ in 0..<3 { #expect(budget.admit(worker, now: 100 + Double(turn)) == .accept) }
        }
    }

}
