import Foundation
import RenderEngine
import SessionKit
import ReelTestSupport
import Synchronization
import Testing
@testable import Farm

/// A batch's jobs are made a slice of about 10 ms a turn (docs/api.md, "Batches"): 2,000
/// variants made in one turn held the loop for about 0.6 s in a debug build. The bound here
/// is generous for a busy machine; it failed at 0.6 s.
@Suite struct BatchSlicesTests {
    @Test func aLargeBatchIsMadeInSlicesWithoutHoldingTheLoop() throws {
        let farm = try ScratchFarm(in: try TestEnvironment.scratchDirectory())
        defer { farm.stop() }
        let (lag, client) = (farm.options.loopLag, farm.client)
        var submit = farm.submission()
        submit.variants = (0..<2000).map { BatchVariant(name: "v\($0)", replace: [:]) }
        let reply = try client.submit(submit)
        #expect(reply.variants?.count == 2000 && Set(reply.variants?.map(\.jobID) ?? []).count == 2000, "\(reply.problems)")
        #expect(lag.summary.max < 0.2, "\(lag.summary)")
        #expect(try client.statusReply(limit: 1000).jobs.count == 1000)
    }
}
