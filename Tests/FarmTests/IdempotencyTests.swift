import Foundation
import RenderEngine
import SessionKit
import ReelTestSupport
import Synchronization
import Testing
@testable import Farm

/// `Idempotency-Key` (docs/api.md, "Retrying a submission"): a retry of a created job, or
/// of one still compiling, gets the first answer, never a second job; the key with another
/// request is refused.
@Suite struct IdempotencyTests {
    @Test(arguments: StoreKind.tested) func aRetryUnderTheSameKeyGetsTheFirstJob(kind: StoreKind) throws {
        let farm = try ScratchFarm(in: try TestEnvironment.scratchDirectory(), store: kind)
        defer { farm.stop() }
        let (endpoint, client) = (farm.coordinator.endpoint, farm.client)
        func request(key: String?, priority: Int = 0) -> Submit {
            var submit = farm.submission(priority: priority)
            submit.idempotencyKey = key
            return submit
        }
        let first = try #require(try client.submit(request(key: "order-1")).jobID)
        #expect(try client.submit(request(key: "order-1")).jobID == first)
        #expect(throws: FarmError.self) { try client.submit(request(key: "order-1", priority: 5)) }
        let other = try client.submit(request(key: nil)).jobID
        #expect(other != nil && other != first)

        // Two tries sent together, both compiled before either is created: one job.
        let replies = Mutex<[String?]>([])
        let group = DispatchGroup()
        let retried = request(key: "order-2")
        for _ in 0..<2 {
            group.enter()
            Thread {
                defer { group.leave() }
                let answer = try? FarmClient(endpoint: endpoint).submit(retried).jobID
                replies.withLock { $0.append(answer) }
            }.start()
        }
        group.wait()
        let both = replies.withLock { $0 }
        #expect(both.count == 2 && both[0] != nil && both[0] == both[1], "\(both)")
        #expect(try client.statusReply().jobs.count == 3)
    }
}
