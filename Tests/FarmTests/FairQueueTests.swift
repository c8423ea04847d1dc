import Testing
@testable import Farm

/// The submissions' queue (docs/operations.md, "Limits"): one item of a client at a time,
/// clients in turn, so a client with many submissions cannot take every thread.
struct FairQueueTests {
    @Test func aClientsNextItemWaitsForItsLastAndTakesItsTurnLast() {
        let queue = FairQueue<Int>()
        queue.post(1, client: "a")
        queue.post(2, client: "a")
        queue.post(3, client: "a")
        queue.post(10, client: "b")
        let first = queue.next(), second = queue.next()
        #expect(first?.client == "a" && first?.item == 1)
        // a is busy: b goes next, though a's items came first.
        #expect(second?.client == "b" && second?.item == 10)
        queue.post(11, client: "b")
        queue.done("b")
        queue.done("a")
        // b's turn came back before a's: b, then a, in the order they finished.
        let third = queue.next(), fourth = queue.next()
        #expect(third?.client == "b" && third?.item == 11)
        #expect(fourth?.client == "a" && fourth?.item == 2)
        queue.stop(threads: 1)
        #expect(queue.next() == nil)
    }
}
