import Testing
@testable import Farm

/// The submissions' queue (docs/operations.md, "Limits"): one item of a client at a time,
/// clients in turn, so a client with many submissions cannot take every thread.
struct FairQueueTests {
    private func next(_ queue: FairQueue<Int>) -> FairQueue<Int>.Turn? {
        if case .request(let turn) = queue.next(thread: 0, timeout: 0) { return turn }
        return nil
    }

    @Test func aClientsNextItemWaitsForItsLastAndTakesItsTurnLast() {
        let queue = FairQueue<Int>()
        queue.post(1, client: "a")
        queue.post(2, client: "a")
        queue.post(3, client: "a")
        queue.post(10, client: "b")
        let first = next(queue), second = next(queue)
        #expect(first?.client == "a" && first?.item == 1)
        // a is busy: b goes next, though a's items came first.
        #expect(second?.client == "b" && second?.item == 10)
        // Nothing else may start: a and b are both busy.
        #expect(next(queue) == nil)
        queue.post(11, client: "b")
        if let second { queue.finished(second) }
        if let first { queue.finished(first) }
        // b's turn came back before a's: b, then a, in the order they finished.
        let third = next(queue), fourth = next(queue)
        #expect(third?.client == "b" && third?.item == 11)
        #expect(fourth?.client == "a" && fourth?.item == 2)
        queue.stop()
        guard case .stopped = queue.next(thread: 0, timeout: nil) else {
            Issue.record("a stopped queue hands out more work")
            return
        }
    }
}
