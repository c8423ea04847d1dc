import Foundation
import RenderEngine
import SessionKit
import Testing
@testable import Farm

/// The scheduler's bookkeeping: the queue hands out the lowest queued shard, requeued
/// shards come back, counts and frames follow every change.
struct ScheduledJobTests {
    private func job(shards: Int) -> ScheduledJob {
        let tasks: [ShardTask] = (0..<shards).map { (i: Int) -> ShardTask in
            let start = Int64(i) * 10
            return ShardTask(kind: .video, segment: 0, startFrame: start, endFrame: start + 10, outputStartFrame: start)
        }
        return ScheduledJob(id: "j", priority: 0, created: 0, spec: SpecFixtures.job(tasks: tasks))
    }

    @Test func queueGivesTheLowestQueuedShardAndTakesBackRequeuedOnes() {
        var j = job(shards: 6)
        var order: [Int] = []
        while let next = j.nextQueued(where: { _ in true }) {
            order.append(next)
            j.set(next, .running)
            if next == 1 { j.set(1, .queued) ; j.set(1, .running) }   // requeued and taken again at once
        }
        #expect(order == [0, 1, 2, 3, 4, 5])
        j.set(4, .queued)
        j.set(2, .queued)
        #expect(j.nextQueued(where: { _ in true }) == 2)
        // A shard the asking worker may not take is skipped, not lost.
        #expect(j.nextQueued(where: { $0 != 2 }) == 4)
        #expect(j.nextQueued(where: { _ in false }) == nil)
        #expect(j.counts.queued == 2 && j.counts.running == 4)
    }

    @Test func countsFramesAndWorkersFollowEveryChange() {
        var j = job(shards: 4)
        for shard in 0..<4 { j.set(shard, .running) }
        j.set(0, .done, by: .worker("a"))
        j.set(1, .done, by: .worker("b"))
        j.set(2, .done, by: .worker("a"))
        #expect(j.framesDone == 30 && j.doneBy == [.worker("a"): 2, .worker("b"): 1])
        #expect(!j.allDone && !j.hasQueued)
        j.set(2, .queued)   // its chunk failed to verify after a restart
        #expect(j.framesDone == 20 && j.doneBy[.worker("a")] == 1 && j.hasQueued)
        j.set(2, .done, by: .worker("b"))
        j.set(3, .done, by: .worker("b"))
        #expect(j.allDone && j.framesDone == 40 && j.doneBy == [.worker("a"): 1, .worker("b"): 3])
    }
}
