import Foundation
import Testing
@testable import Farm

/// docs/operations.md, "Pools": a job of a pool renders only on that pool's workers; a
/// job of none on any; a job whose pool has no worker waits and says so, and starts when
/// one joins.
struct PoolTests {
    typealias Farm = SchedulerTests.Farm

    @Test func jobsOfTwoPoolsNeverCrossAndAJobWaitsForItsPool() {
        var farm = Farm()
        farm.join("big1", slots: 2, pools: ["4k"])
        farm.join("big2", slots: 2, pools: ["4k", "hevc"])
        farm.join("small", slots: 2, pools: ["sd"])
        farm.submit("uhd", shards: 8, pool: "4k")
        farm.submit("sd", shards: 8, pool: "sd")
        farm.submit("any", shards: 8)
        farm.submit("gpu", shards: 2, pool: "gpu")
        var placed: [String: Set<String>] = [:]
        for _ in 0..<20 {
            for (worker, key) in farm.tick() { placed[key.jobID, default: []].insert(worker) }
            farm.clock += 0.5
            for worker in farm.scheduler.workers.values {
                farm.on(.heard(worker.identity))
                for key in worker.running { farm.deliver(key, by: worker.workerID) }
            }
        }
        #expect(placed["uhd"].map { $0.isSubset(of: ["big1", "big2"]) } == true, "\(placed)")
        #expect(placed["sd"] == ["small"], "\(placed)")
        #expect(placed["any"].map { !$0.isEmpty } == true)
        #expect(placed["gpu"] == nil)
        #expect(farm.phase("uhd") == .assembling && farm.phase("sd") == .assembling && farm.phase("any") == .assembling)
        #expect(farm.scheduler.waiting["gpu"] == "no worker in pool gpu")
        #expect(farm.scheduler.waiting.count == 1)
        // A worker of the pool joins: the job starts, and no longer waits.
        farm.join("g", slots: 2, pools: ["gpu"])
        #expect(Set(farm.tick().map(\.worker)) == ["g"])
        #expect(farm.scheduler.waiting["gpu"] == nil)
    }

    /// A pool's job never gets a backup copy on a worker outside the pool.
    @Test func backupCopiesStayInThePool() {
        var farm = Farm()
        farm.join("p1", slots: 1, pools: ["p"])
        farm.join("p2", slots: 1, pools: ["p"])
        farm.join("idle", slots: 4)
        farm.submit("j", shards: 2, pool: "p")
        #expect(Set(farm.tick().map(\.worker)) == ["p1", "p2"])
        for _ in 0..<10 {
            farm.clock += 1
            for peer in farm.scheduler.workers.keys { farm.on(.heard(peer)) }
            #expect(!farm.tick().contains { $0.worker == "idle" })
        }
    }

    /// A job waiting on a farm with no worker at all still says which pool it needs.
    @Test func aPoolJobOnAnEmptyFarmSaysWhichPoolItWaitsFor() {
        var farm = Farm()
        farm.submit("j", shards: 1, pool: "4k")
        _ = farm.tick()
        #expect(farm.scheduler.waiting["j"] == "no worker in pool 4k")
        #expect(farm.effects.contains { if case .notify("j", final: false) = $0 { true } else { false } }, "watchers hear why")
    }
}
