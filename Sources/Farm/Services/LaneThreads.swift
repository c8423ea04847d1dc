import Foundation
import Synchronization

/// Threads that serve one queue of requests (docs/architecture.md, "Lanes"): the one way
/// this codebase runs work beside a loop. Each thread opens its own state on itself (a
/// store connection, a cache: never shared between threads), then handles the requests
/// its queue hands it, one at a time, until the lane is stopped; a state that cannot be
/// opened fails the lane's start instead of a thread later. `tick` adds periodic work
/// (a sync, a look at the store) run at least that often while requests keep coming.
package final class LaneThreads<Queue: LaneQueue>: Sendable {
    package let queue: Queue
    private let count: Int
    /// Signalled by each thread as it ends.
    private let ended = DispatchSemaphore(value: 0)

    /// Starts `count` threads named `name-0`, `name-1`, … (just `name` for one). Returns
    /// once every thread has opened its state; throws the first opening's error, after
    /// stopping the threads that did open. `nice`: the threads' niceness (Linux keeps it
    /// per thread): a lane that works for an event loop yields the cores to it.
    package init<State>(name: String, count: Int = 1, queue: Queue, stackSize: Int = 8 << 20, tick: Double? = nil, nice: Int32 = 0,
                        open: @escaping @Sendable (_ thread: Int) throws -> State,
                        handle: @escaping @Sendable (inout State, Queue.Request) -> Void,
                        onTick: @escaping @Sendable (inout State) -> Void = { _ in },
                        close: @escaping @Sendable (inout State) -> Void = { _ in }) throws {
        self.queue = queue
        self.count = max(1, count)
        let failure = Mutex<(any Error)?>(nil)
        let opened = DispatchSemaphore(value: 0)
        let ended = ended
        for index in 0..<self.count {
            let thread = Thread {
                if nice != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) }
                var state: State
                do {
                    state = try open(index)
                    opened.signal()
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                    opened.signal()
                    ended.signal()
                    return
                }
                var nextTick = tick.map { Self.uptime + $0 }
                serving: while true {
                    let taken = queue.next(thread: index, timeout: nextTick.map { max(0, $0 - Self.uptime) })
                    switch taken {
                    case .request(let request):
                        handle(&state, request)
                        queue.finished(request)
                    case .timedOut: break
                    case .stopped: break serving
                    }
                    if let due = nextTick, let tick, Self.uptime >= due {
                        onTick(&state)
                        nextTick = Self.uptime + tick
                    }
                }
                close(&state)
                ended.signal()
            }
            thread.name = self.count == 1 ? name : "\(name)-\(index)"
            thread.stackSize = stackSize
            thread.start()
        }
        for _ in 0..<self.count { opened.wait() }
        if let error = failure.withLock({ $0 }) {
            queue.stop()
            throw error
        }
    }

    /// Stops the threads: each ends after the request in its hands; requests not begun are dropped.
    package func stop() { queue.stop() }

    /// Ends the lane once every request posted so far is handled, and waits until its
    /// threads have closed their states (a trace's last lines are in its file).
    package func drain() {
        queue.finish()
        for _ in 0..<count { ended.wait() }
    }

    private static var uptime: Double { ProcessInfo.processInfo.systemUptime }
}

/// What a lane's thread takes from its queue.
package enum LaneTake<Request: Sendable>: Sendable {
    case request(Request)
    /// Nothing came within the timeout (time for the lane's tick).
    case timedOut
    case stopped
}

/// Where a lane's threads take their requests: in the order posted (`SharedQueue`), a
/// thread per key (`KeyedQueues`), or by turns between clients (`FairQueue`).
package protocol LaneQueue: Sendable {
    associatedtype Request: Sendable
    /// The next request for `thread`, waiting at most `timeout` seconds (nil: until one comes).
    func next(thread: Int, timeout: Double?) -> LaneTake<Request>
    /// The thread is done with a request `next` gave it.
    func finished(_ request: Request)
    /// From now on every `next` answers `.stopped`.
    func stop()
    /// `next` hands out what is queued, then answers `.stopped`.
    func finish()
}

extension LaneQueue {
    package func finished(_ request: Request) {}
    package func finish() { stop() }
}

/// Requests served in the order posted, by whichever thread is free.
package final class SharedQueue<Request: Sendable>: LaneQueue, Sendable {
    private let state = Mutex((items: [Request](), head: 0, stopped: false, finishing: false))
    private let ready = DispatchSemaphore(value: 0)

    package init() {}

    package func post(_ request: Request) {
        state.withLock { $0.items.append(request) }
        ready.signal()
    }

    package func next(thread: Int, timeout: Double?) -> LaneTake<Request> {
        let deadline = timeout.map { DispatchTime.now() + $0 }
        while true {
            let taken = state.withLock { s -> LaneTake<Request>? in
                if s.stopped { return .stopped }
                guard s.head < s.items.count else { return s.finishing ? .stopped : nil }
                let request = s.items[s.head]
                s.head += 1
                // Compacts once the taken half dominates, so posting stays O(1) amortised.
                if s.head > 64, s.head * 2 > s.items.count {
                    s.items.removeFirst(s.head)
                    s.head = 0
                }
                return .request(request)
            }
            if let taken = ready.handOut(taken) { return taken }
            if !ready.wait(until: deadline) { return .timedOut }
        }
    }

    package func stop() {
        state.withLock { $0.stopped = true }
        ready.signal()
    }

    package func finish() {
        state.withLock { $0.finishing = true }
        ready.signal()
    }
}

/// One queue per thread: requests posted under one key (a job, an upload) always go to the
/// same thread, in the order posted.
package final class KeyedQueues<Request: Sendable>: LaneQueue, Sendable {
    private let queues: [SharedQueue<Request>]

    package init(threads: Int) {
        queues = (0..<max(1, threads)).map { _ in SharedQueue() }
    }

    package var threads: Int { queues.count }

    package func post(_ request: Request, key: String) {
        queues[Self.thread(of: key, among: queues.count)].post(request)
    }

    package func next(thread: Int, timeout: Double?) -> LaneTake<Request> {
        queues[thread].next(thread: 0, timeout: timeout)
    }

    package func stop() { for queue in queues { queue.stop() } }

    package func finish() { for queue in queues { queue.finish() } }

    /// A key's thread: FNV-1a of its bytes (stable across runs, unlike `hashValue`).
    package static func thread(of key: String, among count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(count))
    }
}

extension DispatchSemaphore {
    /// Whether the semaphore was signalled before `deadline` (nil: waits until it is).
    func wait(until deadline: DispatchTime?) -> Bool {
        guard let deadline else {
            wait()
            return true
        }
        return wait(timeout: deadline) == .success
    }

    /// What a queue found for a thread; a stop is passed on to the next waiting thread.
    func handOut<Request>(_ taken: LaneTake<Request>?) -> LaneTake<Request>? {
        if case .stopped = taken { signal() }
        return taken
    }
}
