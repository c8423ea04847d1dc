import Foundation
import Synchronization
import Testing
@testable import Farm

/// The one way the codebase runs work beside a loop (docs/architecture.md, "Lanes"). Each
/// test waits on the lane's own signals (bounded at 10 s), never for a time.
struct LaneThreadsTests {
    private struct Refused: Error {}

    /// Values the lane's threads hand back, awaited one by one.
    private final class Results<Value: Sendable>: Sendable {
        private let values = Mutex<[Value]>([])
        private let posted = DispatchSemaphore(value: 0)
        func post(_ value: Value) {
            values.withLock { $0.append(value) }
            posted.signal()
        }
        /// The first `count` values, or nil if they did not all come within 10 s.
        func wait(for count: Int) -> [Value]? {
            for _ in 0..<count where posted.wait(timeout: .now() + 10) == .timedOut { return nil }
            return values.withLock { $0 }
        }
    }

    @Test func workUnderOneKeyRunsInOrderOnOneThread() throws {
        let results = Results<(key: Int, value: Int, thread: Int)>()
        let lane = try LaneThreads(name: "test-keyed", count: 3, queue: KeyedQueues<(Int, Int)>(threads: 3),
                                   open: { $0 }, handle: { thread, item in results.post((item.0, item.1, thread)) })
        defer { lane.stop() }
        for value in 0..<60 { lane.queue.post((value % 4, value), key: "job \(value % 4)") }
        let all = try #require(results.wait(for: 60))
        for key in 0..<4 {
            let mine = all.filter { $0.key == key }
            #expect(mine.map(\.value) == Array(stride(from: key, to: 60, by: 4)), "key \(key) ran out of order")
            #expect(Set(mine.map(\.thread)) == [KeyedQueues<Int>.thread(of: "job \(key)", among: 3)])
        }
    }

    @Test func aStateThatCannotOpenFailsTheStart() {
        let closed = Results<Int>()
        #expect(throws: Refused.self) {
            _ = try LaneThreads(name: "test-refused", count: 2, queue: SharedQueue<Int>(), open: { thread -> Int in
                if thread == 1 { throw Refused() }
                return thread
            }, handle: { _, _ in }, close: { closed.post($0) })
        }
        // The thread that did open is stopped and closes its state.
        #expect(closed.wait(for: 1) == [0])
    }

    @Test func theTickRunsWhileRequestsKeepComing() throws {
        let ticks = Results<Int>()
        let lane = try LaneThreads(name: "test-tick", queue: SharedQueue<Int>(), tick: 0.01, open: { _ in 0 },
                                   handle: { count, _ in count += 1 }, onTick: { count in ticks.post(count) })
        defer { lane.stop() }
        // A stream of requests with no gap long enough to time out: the tick still runs.
        let feeding = StopSignal()
        let feeder = Thread {
            while !feeding.isRaised { lane.queue.post(1); usleep(1_000) }
        }
        feeder.start()
        defer { feeding.raise() }
        #expect(ticks.wait(for: 3) != nil)
    }

    @Test func stoppingEndsEveryThreadAndClosesItsState() throws {
        let closed = Results<Int>()
        let lane = try LaneThreads(name: "test-stop", count: 4, queue: SharedQueue<Int>(), open: { $0 },
                                   handle: { _, _ in }, close: { closed.post($0) })
        lane.stop()
        #expect(closed.wait(for: 4).map { Set($0) } == [0, 1, 2, 3])
        guard case .stopped = lane.queue.next(thread: 0, timeout: 0) else {
            Issue.record("a stopped queue hands out work")
            return
        }
    }

    @Test func drainingHandlesEverythingPostedBeforeItEnds() throws {
        let handled = Results<Int>()
        let lane = try LaneThreads(name: "test-drain", count: 2, queue: SharedQueue<Int>(), open: { _ in () },
                                   handle: { _, value in usleep(100); handled.post(value) })
        for value in 0..<200 { lane.queue.post(value) }
        lane.drain()
        // Returned only once both threads ended: everything posted was handled by then.
        #expect(handled.wait(for: 200).map { Set($0) } == Set(0..<200))
    }
}
