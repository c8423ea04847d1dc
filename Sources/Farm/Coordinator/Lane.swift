import Foundation
import Synchronization

/// Blocking work off an event loop (docs/architecture.md, "The I/O lane"): a fixed pool of
/// threads, each with its own queue; work posted under one key (a job, an upload) always
/// runs on the same thread in the order posted, so a job's chunk writes and the removal of
/// its chunks never overtake each other. Each piece of work returns a value — what it
/// found, never a closure over the loop's state — which the loop takes after its poll is
/// woken and applies with one reducer (`Coordinator.apply(_: LaneOutcome)`).
final class Lane<Outcome: Sendable>: Sendable {
    typealias Work = @Sendable () -> Outcome?

    private let threads: LaneThreads<KeyedQueues<@Sendable () -> Void>>
    private let outcomes: Outcomes

    /// `nice`: the threads' niceness, above the loop's so that the loop takes a core first.
    init(threads count: Int, name: String, wakeup: Wakeup, nice: Int32 = 0) {
        outcomes = Outcomes(wakeup: wakeup)
        // Opening a state of nothing cannot fail.
        threads = try! LaneThreads(name: name, count: count, queue: KeyedQueues(threads: count), stackSize: 4 << 20, nice: nice,
                                   open: { _ in () }, handle: { _, work in work() })
    }

    /// Runs `work` on the thread of `key`, after the work posted before under keys of that thread.
    /// `label`: what the work is, for the loop's profile of a slow turn; else the key's first word.
    func post(key: String, label: String? = nil, _ work: @escaping Work) {
        outcomes.pending.add(1, ordering: .relaxed)
        let label = label ?? String(key.prefix { $0 != " " })
        let outcomes = outcomes
        threads.queue.post({ outcomes.finished(work().map { (label, $0) }) }, key: key)
    }

    /// What finished work found, each with its label, in the order it finished.
    func take() -> [(label: String, outcome: Outcome)] {
        let taken = outcomes.done.take()
        outcomes.pending.subtract(taken.count, ordering: .relaxed)
        return taken
    }

    /// Work posted whose outcome the loop has not taken.
    var backlog: Int { outcomes.pending.load(ordering: .relaxed) }

    func shutDown() { threads.stop() }

    /// Where the threads put what they found.
    private final class Outcomes: Sendable {
        let done: Inbox<(label: String, outcome: Outcome)>
        let pending = Atomic<Int>(0)

        init(wakeup: Wakeup) { done = Inbox(wakes: wakeup) }

        func finished(_ outcome: (label: String, outcome: Outcome)?) {
            if let outcome {
                done.post(outcome)
            } else {
                pending.subtract(1, ordering: .relaxed)
                done.wake()
            }
        }
    }
}
