import Foundation
import Testing
@testable import Farm

/// docs/operations.md, "Sick workers": a worker whose shards fail on it and not elsewhere
/// is quarantined at its third such failure; failures a shard also meets elsewhere (a bad
/// input) quarantine no one; a quarantine ends with its time or an operator's release.
struct SickWorkerTests {
    typealias Farm = SchedulerTests.Farm

    /// Every running shard ends: the sick worker's fail, the others' deliver.
    private static func settle(_ farm: inout Farm, sick: Set<String>) -> Int {
        farm.clock += 0.5
        for peer in farm.scheduler.workers.keys { farm.on(.heard(peer)) }
        var failures = 0
        for worker in farm.scheduler.workers.values.sorted(by: { $0.workerID < $1.workerID }) {
            for key in worker.running.sorted(by: { $0.shard < $1.shard }) {
                if sick.contains(worker.workerID) {
                    farm.on(.failed(worker.identity, key, code: .renderFailed, reason: "disk error"))
                    failures += 1
                } else {
                    farm.deliver(key, by: worker.workerID)
                }
            }
        }
        return failures
    }

    @Test func aWorkerThatFailsEveryShardIsQuarantinedAtItsThirdFailureAndTheJobEndsDone() {
        var farm = Farm()
        farm.join("sick", slots: 2)
        farm.join("well", slots: 1)
        farm.submit("j", shards: 12)
        for _ in 0..<40 where farm.phase("j") == .rendering || farm.phase("j") == .queued {
            _ = farm.tick()
            _ = Self.settle(&farm, sick: ["sick"])
        }
        // Failures the farm took as such: the attempts it gave the sick worker before the
        // quarantine that ended failed (those it withdrew end `cancelled`).
        let failures = farm.effects.filter {
            if case .persist(.endAttempt(_, .failed, let message, _)) = $0 { message?.hasPrefix("sick:") == true } else { false }
        }.count
        #expect(farm.phase("j") == .assembling, "every shard done: \(farm.scheduler.jobs["j"]?.counts as Any)")
        #expect(failures == 3, "quarantined at its third failure, no later: \(farm.logs.filter { $0.contains("sick") })")
        #expect(farm.scheduler.isQuarantined("sick") && !farm.scheduler.isQuarantined("well"))
        #expect(farm.logs.contains { $0.contains("worker sick is quarantined") }, "\(farm.logs)")
    }

    /// A job whose shards fail everywhere (its input is bad) fails, and no worker stays
    /// quarantined for it: each failure met elsewhere too clears the strikes.
    @Test func failuresOfABadInputQuarantineNoOne() {
        var farm = Farm()
        for name in ["w1", "w2", "w3"] { farm.join(name, slots: 1) }
        farm.submit("bad", shards: 3)
        for _ in 0..<12 where farm.scheduler.jobs["bad"] != nil {
            _ = farm.tick()
            _ = Self.settle(&farm, sick: ["w1", "w2", "w3"])
        }
        #expect(farm.finalPhases["bad"] == .failed)
        #expect(["w1", "w2", "w3"].allSatisfy { !farm.scheduler.isQuarantined($0) }, "\(farm.scheduler.health)")
        // The farm takes the next job at once.
        farm.submit("next", shards: 3)
        #expect(farm.tick().count == 3)
    }

    /// A worker held at its third failure is released when those failures turn out to be
    /// the input's (the same shards fail on another worker). A worker of another pool is
    /// connected, so the pool's one worker may be quarantined, and the job says why it waits.
    @Test func aQuarantineOnFailuresLaterMetElsewhereIsLifted() {
        var farm = Farm()
        farm.join("fast", slots: 3, pools: ["p"])
        farm.join("elsewhere", slots: 1)
        farm.submit("bad", shards: 3, pool: "p")
        _ = farm.tick()
        _ = Self.settle(&farm, sick: ["fast"])
        _ = farm.tick()
        #expect(farm.scheduler.isQuarantined("fast"))
        #expect(farm.scheduler.waiting["bad"] == "every worker in pool p is quarantined")
        farm.join("other", slots: 3, pools: ["p"])
        _ = farm.tick()
        _ = Self.settle(&farm, sick: ["other"])
        _ = farm.tick()
        #expect(!farm.scheduler.isQuarantined("fast"), "\(farm.scheduler.health)")
        #expect(farm.logs.contains { $0.contains("worker fast is out of quarantine") && $0.contains("the input") }, "\(farm.logs)")
    }

    /// On a farm of one worker a failure cannot be told from a bad input: that worker is
    /// not quarantined and a job that fails there fails, as before.
    @Test func theLastWorkerIsNotQuarantinedAndAJobThatFailsThereFails() {
        var farm = Farm()
        farm.join("only", slots: 1)
        farm.submit("j", shards: 2)
        for _ in 0..<8 where farm.scheduler.jobs["j"] != nil {
            _ = farm.tick()
            _ = Self.settle(&farm, sick: ["only"])
        }
        #expect(farm.finalPhases["j"] == .failed)
        #expect(!farm.scheduler.isQuarantined("only"))
    }

    /// Its strikes stand while its job runs: once another worker joins, it is quarantined.
    @Test func theLastWorkerIsQuarantinedOnceAnotherJoins() {
        var farm = Farm()
        farm.join("only", slots: 1)
        farm.submit("j", shards: 6)
        for _ in 0..<3 {
            _ = farm.tick()
            _ = Self.settle(&farm, sick: ["only"])
        }
        #expect(farm.phase("j") == .rendering && !farm.scheduler.isQuarantined("only"))
        farm.join("second")
        _ = farm.tick()
        #expect(farm.scheduler.isQuarantined("only"), "\(farm.scheduler.health)")
    }

    @Test func aQuarantineEndsWithItsTimeOrAnOperatorsRelease() {
        var farm = Farm()
        farm.join("sick", slots: 3)
        farm.join("well", slots: 1)
        farm.submit("j", shards: 6)
        _ = farm.tick()
        _ = Self.settle(&farm, sick: ["sick"])
        #expect(farm.scheduler.isQuarantined("sick"))
        // No shard goes to it while it is quarantined.
        _ = farm.tick()
        #expect(farm.busy("sick") == 0 && farm.busy("well") == 1)
        farm.clock += farm.scheduler.limits.quarantineSeconds
        for peer in farm.scheduler.workers.keys { farm.on(.heard(peer)) }
        #expect(farm.tick().contains { $0.worker == "sick" }, "its time is over: it takes shards again")
        #expect(!farm.scheduler.isQuarantined("sick"))
        // Quarantined again, then lifted by hand.
        _ = Self.settle(&farm, sick: ["sick"])
        _ = farm.tick()
        _ = Self.settle(&farm, sick: ["sick"])
        farm.submit("k", shards: 6)
        _ = farm.tick()
        _ = Self.settle(&farm, sick: ["sick"])
        if !farm.scheduler.isQuarantined("sick") {
            _ = farm.tick()
            _ = Self.settle(&farm, sick: ["sick"])
        }
        #expect(farm.scheduler.isQuarantined("sick"))
        farm.on(.release(workerID: "sick"))
        #expect(!farm.scheduler.isQuarantined("sick"))
        #expect(farm.tick().contains { $0.worker == "sick" })
    }

    /// Strikes further apart than the window never add up to a quarantine.
    @Test func failuresFurtherApartThanTheWindowDoNotAddUp() {
        var farm = Farm()
        farm.join("flaky", slots: 1)
        farm.join("well", slots: 1)
        for round in 0..<4 {
            farm.submit("j\(round)", shards: 2)
            _ = farm.tick()
            _ = Self.settle(&farm, sick: ["flaky"])
            _ = farm.tick()
            _ = Self.settle(&farm, sick: [])
            farm.clock += farm.scheduler.limits.quarantineWindowSeconds + 1
            for peer in farm.scheduler.workers.keys { farm.on(.heard(peer)) }
            _ = farm.tick()
        }
        #expect(!farm.scheduler.isQuarantined("flaky"))
    }
}
