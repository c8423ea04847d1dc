import Foundation
import Testing
@testable import Farm

/// docs/operations.md, "Tenants": free slots go to the tenant furthest below its weighted
/// share; a client's priority orders only its own jobs; an admin's farm priority goes first.
struct FairShareTests {
    typealias Farm = SchedulerTests.Farm

    /// A second on the clock, every worker heard from in it.
    private static func pass(_ farm: inout Farm) {
        farm.clock += 1
        for peer in farm.scheduler.workers.keys { farm.on(.heard(peer)) }
    }

    /// A second passes, and every shard running ends; says whose they were.
    private static func finishRunning(_ farm: inout Farm) -> [String] {
        pass(&farm)
        let running = farm.scheduler.workers.values.flatMap(\.running).sorted { ($0.jobID, $0.shard) < ($1.jobID, $1.shard) }
        for key in running {
            let holder = farm.scheduler.workers.first { $0.value.running.contains(key) }?.value.workerID ?? "?"
            farm.deliver(key, by: holder)
        }
        return running.map(\.jobID)
    }

    private static func owner(of job: String, in farm: Farm) -> String? { farm.scheduler.jobs[job]?.owner }

    /// One slot; tenant A has 200 jobs queued before B's one: B's job is given the slot
    /// the first time it frees (one shard-time), and from then on the two take turns.
    @Test func aTenantsOneJobStartsOneShardTimeAfterAnotherTenantsDeepQueue() {
        var farm = Farm()
        for i in 0..<200 { farm.submit(String(format: "a%03d", i), shards: 2, owner: "A") }
        farm.join("w", slots: 1)
        #expect(farm.tick().map(\.key.jobID) == ["a000"])
        farm.submit("b", shards: 3, owner: "B")
        var order: [String] = []
        for _ in 0..<6 {
            _ = Self.finishRunning(&farm)
            order += farm.tick().map(\.key.jobID)
        }
        #expect(order.first == "b", "B's job waits no more than the one shard running when it came")
        let tenants = order.map { $0.hasPrefix("a") ? "A" : "B" }
        #expect(tenants == ["B", "A", "B", "A", "B", "A"], "equal shares take turns: \(order)")
    }

    /// Tenants of weights 1 and 3 on a full farm of 8 slots hold 2 and 6 of them, and keep
    /// that ratio as slots free and are given out again.
    @Test func weightsDivideTheSlotsInTheirRatio() {
        var farm = Farm()
        farm.scheduler = Scheduler(limits: Scheduler.Limits(tenantWeights: ["light": 1, "heavy": 3]))
        for i in 0..<20 { farm.submit("l\(i)", shards: 10, owner: "light") }
        for i in 0..<20 { farm.submit("h\(i)", shards: 10, owner: "heavy") }
        for name in ["w1", "w2", "w3", "w4"] { farm.join(name, slots: 2) }
        var samples: [(light: Int, heavy: Int)] = []
        _ = farm.tick()
        for _ in 0..<30 {
            let running = farm.scheduler.workers.values.flatMap(\.running).map { Self.owner(of: $0.jobID, in: farm) }
            samples.append((running.filter { $0 == "light" }.count, running.filter { $0 == "heavy" }.count))
            // Free one worker's slots at a time, as shards end at different times.
            Self.pass(&farm)
            let worker = farm.scheduler.workers.values.sorted { $0.workerID < $1.workerID }[samples.count % 4]
            for key in worker.running.sorted(by: { $0.shard < $1.shard }) { farm.deliver(key, by: worker.workerID) }
            _ = farm.tick()
        }
        let light = samples.map(\.light).reduce(0, +), heavy = samples.map(\.heavy).reduce(0, +)
        #expect(samples.allSatisfy { $0.light + $0.heavy == 8 }, "the farm stays full")
        #expect(abs(Double(heavy) / Double(light) - 3) <= 0.3, "1:3 within 10 %: \(light) : \(heavy)")
    }

    /// A tenant's priority 1000 buys nothing against another tenant: on one slot they still
    /// take turns; within the tenant, its higher-priority job goes first.
    @Test func aClientsPriorityOrdersOnlyItsOwnJobs() {
        var farm = Farm()
        farm.submit("a-low", shards: 4, priority: 0, owner: "A")
        farm.submit("a-urgent", shards: 4, priority: 1000, owner: "A")
        farm.submit("b", shards: 4, priority: 0, owner: "B")
        farm.join("w", slots: 1)
        var order = farm.tick().map(\.key.jobID)
        for _ in 0..<3 {
            _ = Self.finishRunning(&farm)
            order += farm.tick().map(\.key.jobID)
        }
        #expect(order == ["a-urgent", "b", "a-urgent", "b"])
    }

    /// An admin's farm priority puts a job before every tenant's share; set back to 0, the
    /// shares rule again.
    @Test func anAdminsFarmPriorityGoesBeforeEveryShare() {
        var farm = Farm()
        farm.submit("a", shards: 6, owner: "A")
        farm.submit("b", shards: 6, owner: "B")
        farm.join("w", slots: 1)
        #expect(farm.tick().map(\.key.jobID) == ["a"])
        let out = farm.on(.setFarmPriority("a", priority: 5))
        #expect(out.contains { if case .persist(.jobFarmPriority("a", 5)) = $0 { true } else { false } })
        var order: [String] = []
        for _ in 0..<3 {
            _ = Self.finishRunning(&farm)
            order += farm.tick().map(\.key.jobID)
        }
        #expect(order == ["a", "a", "a"], "the urgent job holds the slot: \(order)")
        farm.on(.setFarmPriority("a", priority: 0))
        _ = Self.finishRunning(&farm)
        #expect(farm.tick().map(\.key.jobID) == ["b"])
    }

    /// Work-conserving: a tenant with nothing queued leaves its share to the others, and
    /// gets it back with the next free slot once its job arrives.
    @Test func anIdleTenantsShareGoesToTheOthersAndComesBack() {
        var farm = Farm()
        farm.submit("a", shards: 20, owner: "A")
        farm.join("w1", slots: 2)
        farm.join("w2", slots: 2)
        #expect(farm.tick().count == 4, "A alone takes every slot")
        farm.submit("b", shards: 20, owner: "B")
        #expect(farm.tick().isEmpty, "running shards are not taken back")
        Self.pass(&farm)
        let w1 = farm.scheduler.workers[Farm.peer("w1")]?.running.sorted { $0.shard < $1.shard } ?? []
        for key in w1 { farm.deliver(key, by: "w1") }
        #expect(farm.tick().map(\.key.jobID) == ["b", "b"], "both freed slots go to B, furthest below its share")
    }
}
