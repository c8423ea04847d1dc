import Foundation
import Testing
@testable import Farm

/// docs/operations.md, "Thumbnails and frames": a request goes to the worker its media
/// ranks first; a failure, a lost or a silent worker moves it to the next; nobody to serve
/// it within 30 s fails it; a late answer is dropped.
struct StillsBrokerTests {
    static let request = StillsRequest(requestID: "client-7", session: "{}", files: ["a.mp4": "sha256:aa"], paths: [:], stills: [])
    static let workers: [PeerID: String] = [Data("p1".utf8): "w1", Data("p2".utf8): "w2", Data("p3".utf8): "w3"]

    func peer(_ worker: String) -> PeerID { Self.workers.first { $0.value == worker }?.key ?? Data() }

    @Test func aRequestFollowsTheRankingUntilAWorkerServesIt() throws {
        let ranking = StillsBroker.rendezvous(mediaID: "sha256:aa", workers: Array(Self.workers.values))
        var broker = StillsBroker()
        let client = Data("client".utf8)
        broker.add(Self.request, from: .peer(client), mediaID: "sha256:aa", id: "s1", now: 0)
        guard case .send(let first, let forwarded) = broker.route("s1", workers: Self.workers, now: 0) else {
            Issue.record("not sent")
            return
        }
        #expect(first == peer(ranking[0]) && forwarded.requestID == "s1")
        #expect(broker.serves(first, contentID: "sha256:aa") && !broker.serves(first, contentID: "sha256:bb"))

        // It fails there: retried on the next worker; a late answer from the first is dropped.
        let failure = StillsReply(requestID: "s1", worker: ranking[0], results: [], invalid: nil, error: FarmError(.renderFailed, "boom"), missing: [])
        guard case .some(.none) = broker.answer(failure, from: first, liveWorkers: 3) else {
            Issue.record("a failure was not retried")
            return
        }
        guard case .send(let second, _) = broker.route("s1", workers: Self.workers, now: 1) else {
            Issue.record("not sent again")
            return
        }
        #expect(second == peer(ranking[1]))
        let late = broker.answer(failure, from: first, liveWorkers: 3)
        #expect(late == nil)

        // Silent for 20 s: moved to the third; its answer goes to the client under the client's id.
        let early = broker.stalled(now: 10, isLive: { _ in true })
        let silent = broker.stalled(now: 21.5, isLive: { _ in true })
        #expect(early.isEmpty && silent == ["s1"])
        guard case .send(let third, _) = broker.route("s1", workers: Self.workers, now: 21.5) else {
            Issue.record("not moved")
            return
        }
        #expect(third == peer(ranking[2]))
        let served = StillsReply(requestID: "s1", worker: ranking[2], results: [], invalid: nil, error: nil, missing: [])
        guard case .some(.some(let answer)) = broker.answer(served, from: third, liveWorkers: 3) else {
            Issue.record("the answer was not passed on")
            return
        }
        #expect(answer.client == .peer(client) && answer.reply.requestID == "client-7" && broker.pending.isEmpty)
    }

    @Test func withNoWorkerARequestWaitsThenFails() {
        var broker = StillsBroker()
        broker.add(Self.request, from: .probeWaiter(token: "p1"), mediaID: "sha256:aa", id: "s1", now: 0)
        guard case .wait = broker.route("s1", workers: [:], now: 29) else {
            Issue.record("did not wait")
            return
        }
        guard case .fail(.probeWaiter("p1"), let reply) = broker.route("s1", workers: [:], now: 30.5) else {
            Issue.record("did not fail")
            return
        }
        #expect(reply.error == FarmError(.noAnswer, "no live workers") && reply.requestID == "client-7" && broker.pending.isEmpty)
    }
}
