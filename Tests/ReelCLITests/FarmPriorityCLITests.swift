import Foundation
import ReelTestSupport
import Testing

/// `reel priority` (docs/operations.md, "Tenants"): a job's own priority, an admin's farm
/// priority (a farm without keys: every peer is an admin), both read back as JSON, and a
/// number out of range refused before anything is sent.
@Suite struct FarmPriorityCLITests {
    @Test func priorityAndFarmPriorityAreSetAndShownAndBadOnesRefused() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        try farm.startCoordinator()   // no worker: the job stays queued, unfinished
        let job = try farm.submit()
        let own = try farm.reel(["priority", job, "5", "--json"])
        #expect(own.status == 0, "\(own.stderr)")
        let ownStatus = try #require(try JSONSerialization.jsonObject(with: Data(own.stdout.utf8)) as? [String: Any])
        #expect(ownStatus["priority"] as? Int == 5 && ownStatus["farmPriority"] == nil, "\(ownStatus)")
        let urgent = try farm.reel(["priority", job, "7", "--farm", "--json"])
        #expect(urgent.status == 0, "\(urgent.stderr)")
        let urgentStatus = try #require(try JSONSerialization.jsonObject(with: Data(urgent.stdout.utf8)) as? [String: Any])
        #expect(urgentStatus["farmPriority"] as? Int == 7 && urgentStatus["priority"] as? Int == 5, "\(urgentStatus)")
        let status = try farm.status(job)
        #expect(status["farmPriority"] as? Int == 7, "\(status)")
        for bad in [["2000"], ["1001", "--farm"], ["--farm", "--", "-1"]] {
            let refused = try farm.reel(["priority", job] + bad)
            #expect(refused.status == 2 && refused.stderr.contains("outside"), "\(bad): \(refused.stderr)")
        }
    }
}
