import Synchronization
import Testing
@testable import FarmHTTP

/// The gateway's limit on calls at once: no more than its turns run together, and every
/// waiter gets a turn.
struct TurnsTests {
    final class Tally: Sendable {
        let running = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
    }

    @Test func noMoreThanItsTurnsRunAtOnceAndEveryWaiterRuns() async {
        let turns = Turns(3)
        let tally = Tally()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    await turns.take()
                    let now = tally.running.add(1, ordering: .relaxed).newValue
                    _ = tally.most.max(now, ordering: .relaxed)
                    await Task.yield()
                    tally.running.subtract(1, ordering: .relaxed)
                    tally.finished.add(1, ordering: .relaxed)
                    turns.give()
                }
            }
        }
        #expect(tally.most.load(ordering: .relaxed) <= 3)
        #expect(tally.finished.load(ordering: .relaxed) == 40)
    }
}
