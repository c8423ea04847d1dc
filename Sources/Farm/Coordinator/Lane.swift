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

    private let queues: [Queue]
    private let outcomes: Outcomes

    init(threads: Int, name: String, wakeup: Wakeup) {
        outcomes = Outcomes(wakeup: wakeup)
        queues = (0..<max(1, threads)).map { Queue(name: "\(name)-\($0)") }
        for queue in queues { queue.start(outcomes) }
    }

    /// Runs `work` on the thread of `key`, after the work posted before under keys of that thread.
    /// `label`: what the work is, for the loop's profile of a slow turn; else the key's first word.
    func post(key: String, label: String? = nil, _ work: @escaping Work) {
        outcomes.pending.add(1, ordering: .relaxed)
        let label = label ?? String(key.prefix { $0 != " " })
        queues[Self.thread(of: key, among: queues.count)].post { work().map { (label, $0) } }
    }

    /// What finished work found, each with its label, in the order it finished.
    func take() -> [(label: String, outcome: Outcome)] {
        let taken = outcomes.done.take()
        outcomes.pending.subtract(taken.count, ordering: .relaxed)
        return taken
    }

    /// Work posted whose outcome the loop has not taken.
    var backlog: Int { outcomes.pending.load(ordering: .relaxed) }

    func shutDown() { for queue in queues { queue.stop() } }

    /// A key's thread: FNV-1a of its bytes (stable across runs, unlike `hashValue`).
    static func thread(of key: String, among count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(count))
    }

    /// Where the threads put what they found.
    private final class Outcomes: Sendable {
        let done = Inbox<(label: String, outcome: Outcome)>()
        let pending = Atomic<Int>(0)
        let wakeup: Wakeup

        init(wakeup: Wakeup) { self.wakeup = wakeup }

        func finished(_ outcome: (label: String, outcome: Outcome)?) {
            if let outcome { done.post(outcome) } else { pending.subtract(1, ordering: .relaxed) }
            wakeup.signal()
        }
    }

    /// One thread and its queue.
    private final class Queue: Sendable {
        private let work = Inbox<@Sendable () -> (label: String, outcome: Outcome)?>()
        private let wake = DispatchSemaphore(value: 0)
        private let stopped = StopSignal()
        private let name: String

        init(name: String) { self.name = name }

        func start(_ outcomes: Outcomes) {
            let (work, wake, stopped) = (work, wake, stopped)
            let thread = Thread {
                while !stopped.isRaised {
                    wake.wait()
                    for item in work.take() { outcomes.finished(item()) }
                }
            }
            thread.name = name
            thread.stackSize = 4 << 20
            thread.start()
        }

        func post(_ item: @escaping @Sendable () -> (label: String, outcome: Outcome)?) {
            work.post(item)
            wake.signal()
        }

        func stop() {
            stopped.raise()
            wake.signal()
        }
    }
}
