import Foundation
import Testing
@testable import Farm

/// What a worker offers again to the next coordinator it joins (docs/operations.md, "A
/// standby coordinator"): chunks not yet confirmed by the coordinator they went to.
struct UnconfirmedChunksTests {
    private func ready(_ shard: Int) -> ChunkReady {
        ChunkReady(jobID: "j", shard: shard, attempt: 1, sha256: "s", size: 4, millis: 1)
    }

    @Test func onlyTheCoordinatorAChunkWentToConfirmItAndOnlyAfterAWhile() {
        var chunks = UnconfirmedChunks(confirmSeconds: 2)
        let t0 = Date(timeIntervalSince1970: 1000)
        chunks.sent(ready(0), OwnedBuffer([1, 2, 3, 4]), to: "a", at: t0)
        chunks.sent(ready(1), OwnedBuffer([1, 2, 3, 4]), to: "a", at: t0.addingTimeInterval(1.5))
        chunks.heard(from: "a", at: t0.addingTimeInterval(1))     // too soon to tell
        chunks.heard(from: "b", at: t0.addingTimeInterval(5))     // another coordinator says nothing of them
        #expect(chunks.chunks.map(\.ready.shard) == [0, 1])
        chunks.heard(from: "a", at: t0.addingTimeInterval(2.5))   // a read the first by now
        #expect(chunks.chunks.map(\.ready.shard) == [1])
        let offered = chunks.takeForResending()
        #expect(offered.map(\.ready.shard) == [1] && chunks.chunks.isEmpty)
    }

    @Test func theOldestGoFirstPastTheLimit() {
        var chunks = UnconfirmedChunks(confirmSeconds: 2, limitBytes: 10)
        let now = Date()
        for shard in 0..<4 { chunks.sent(ready(shard), OwnedBuffer([UInt8](repeating: 0, count: 4)), to: "a", at: now) }
        #expect(chunks.chunks.map(\.ready.shard) == [2, 3])
    }
}
