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

/// One API client's calls stuck on something slow (a hanging origin) hold only its share
/// of the gateway's turns (docs/operations.md, "Limits"); a freed turn goes to the next
/// client that may take one, not to the client already at its share.
// The limit only turns a deadlock into a failure. It is long: in the full run an awaiting
// async test waits behind the blocking tests that hold the cooperative pool's two threads
// (5 minutes were seen on 2 cores), whatever Turns does.
@Suite(.timeLimit(.minutes(20))) struct FairTurnsTests {
    /// A latch a task awaits until the test opens it.
    final class Latch: Sendable {
        private let waiters = Mutex<(open: Bool, continuations: [CheckedContinuation<Void, Never>])>((false, []))
        func wait() async {
            await withCheckedContinuation { continuation in
                let now = waiters.withLock { s -> Bool in
                    if s.open { return true }
                    s.continuations.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
        func open() {
            for continuation in waiters.withLock({ s -> [CheckedContinuation<Void, Never>] in
                s.open = true
                defer { s.continuations = [] }
                return s.continuations
            }) { continuation.resume() }
        }
    }

    /// Yields until `condition` holds: the tasks started move only when the test yields.
    private func until(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    @Test func oneClientHoldsItsShareAndAFreedTurnGoesToAnotherClient() async {
        let turns = Turns(4, perClient: 2)
        let hanging = Latch()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await turns.take(for: "x")
                    await hanging.wait()
                    turns.give(for: "x")
                }
            }
            await until { turns.counts("x") == (2, 18) }

            // Another client is not held back behind x's eighteen.
            await turns.take(for: "y")
            await turns.take(for: "y")
            #expect(turns.counts("y") == (2, 0))
            // Every turn is taken now: z waits, and gets the next freed turn, not x.
            let zRan = Latch()
            group.addTask {
                await turns.take(for: "z")
                zRan.open()
                turns.give(for: "z")
            }
            await until { turns.counts("z").waiting == 1 }
            turns.give(for: "y")
            await zRan.wait()
            #expect(turns.counts("x") == (2, 18))
            // Calls of no client (admins, signed URLs) are not capped.
            turns.give(for: "y")
            await turns.take()
            await turns.take()
            #expect(turns.counts(nil).held == 2)
            turns.give()
            turns.give()
            hanging.open()
        }
        #expect(turns.counts("x") == (0, 0))
    }
}
