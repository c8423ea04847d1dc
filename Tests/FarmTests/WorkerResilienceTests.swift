import Foundation
import ReelTestSupport
import RenderEngine
import SessionKit
import Testing
@testable import Farm

/// A worker fails the one item that went wrong, with its code, and lives on: the test
/// plays its coordinator on a ROUTER socket and sends what a broken or hostile coordinator
/// could — junk, an undecodable shard, media it lacks, media it cannot read — then checks
/// the worker's answers and that it still heartbeats and takes work.
struct WorkerResilienceTests {
    @Test func anItemThatFailsFailsAloneAndTheWorkerLivesOn() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let endpoint = "ipc://" + dir.appendingPathComponent("coordinator.ipc").path
        let context = try ZMQContext()
        let coordinator = try ZMQSocket(context, .router)
        try coordinator.bind(endpoint)
        defer { coordinator.close() }

        var options = Worker.Options(endpoint: endpoint, slots: 2, cacheDirectory: dir.appendingPathComponent("cache"))
        options.heartbeatMillis = 100
        options.liveness = 100   // the test answers slowly at times: no reconnects
        let stop = options.stop
        let ended = DispatchSemaphore(value: 0)
        let thread = Thread { [options] in
            do { try Worker(options: options).run() } catch { Issue.record("the worker ended: \(error)") }
            ended.signal()
        }
        thread.start()
        defer {
            stop.raise()
            _ = ended.wait(timeout: .now() + 10)
        }

        /// The worker's next message of one of `types`, within 10 s (others are skipped).
        func next(_ types: Set<MessageType>) throws -> (peer: Data, message: WireMessage) {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                guard try ZMQSocket.poll([coordinator], timeoutMillis: 100)[0], let frames = try coordinator.receive() else { continue }
                let message = try WireMessage.parse(Array(frames.dropFirst()))
                if types.contains(message.type) { return (frames[0], message) }
            }
            throw FarmError(.noAnswer, "the worker sent none of \(types) within 10 s")
        }
        func send<Body: Encodable>(_ peer: Data, _ type: MessageType, _ body: Body, payload: [Data] = []) throws {
            try coordinator.send([.bytes(peer)] + (try WireMessage(type, body, payload: payload)).frames)
        }

        let (peer, _) = try next([.hello])
        try send(peer, .welcome, Welcome(heartbeatMillis: 100))

        // Junk and a shard whose body does not decode: dropped and logged, nothing ends.
        try coordinator.send([.bytes(peer), .bytes(Data("not a message".utf8))])
        try coordinator.send([.bytes(peer), .bytes(Data(#"{"v":\#(WireProtocol.version),"type":"shard","body":{"jobID":1}}"#.utf8))])

        // A video shard whose media the coordinator holds but cannot read: the shard fails
        // with the coordinator's code.
        let job = try SpecFixtures.clipJob()
        let video = try #require(job.tasks.indices.first { job.tasks[$0].kind == .video })
        try send(peer, .shard, ShardAssignment(jobID: "j", shard: video, attempt: 1, spec: job.shard(video)))
        let request = try next([.mediaRequest]).message.decode(MediaRequest.self)
        var unreadable = MediaBlock(contentID: request.contentID, offset: request.offset, total: 0, missing: false)
        unreadable.error = FarmError(.ioFailed, "the coordinator cannot read it")
        try send(peer, .mediaBlock, unreadable, payload: [Data()])
        let first = try next([.failed]).message.decode(ShardFailed.self)
        #expect(first.attemptID == AttemptID(jobID: "j", shard: video, attempt: 1))
        #expect(first.code == .ioFailed, "\(first.reason)")

        // The audio task fetches its file whole: the coordinator says it lacks it.
        let audio = try #require(job.tasks.indices.first { job.tasks[$0].kind != .video })
        try send(peer, .shard, ShardAssignment(jobID: "j", shard: audio, attempt: 1, spec: job.shard(audio)))
        let whole = try next([.mediaRequest]).message.decode(MediaRequest.self)
        try send(peer, .mediaBlock, MediaBlock(contentID: whole.contentID, offset: whole.offset, total: 0, missing: true), payload: [Data()])
        let second = try next([.failed]).message.decode(ShardFailed.self)
        #expect(second.attemptID == AttemptID(jobID: "j", shard: audio, attempt: 1))
        #expect(second.code == .missingMedia, "\(second.reason)")

        // Still alive: it heartbeats with nothing running, and a coordinator that does not
        // know it is answered with a new hello, not an exit.
        let beat = try next([.heartbeat]).message.decode(Heartbeat.self)
        #expect(beat.busy == 0)
        try send(peer, .refused, FarmError(.unknownWorker, "unknown worker: say hello"))
        _ = try next([.hello])
        #expect(ended.wait(timeout: .now()) == .timedOut)
    }
}
