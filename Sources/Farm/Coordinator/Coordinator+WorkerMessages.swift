import Foundation
import RenderEngine
import SessionKit

extension Coordinator {
    /// What a worker says: its hello and heartbeats, its chunks and failures (the
    /// scheduler decides), its requests for media blocks (read on the I/O lane).
    func workerSaid(_ message: WireMessage, from identity: Data) throws {
        switch message.type {
        case .hello:
            let hello = try message.decode(Hello.self)
            guard hello.engineVersion == EngineVersion.engine else {
                send(to: identity, .refused, FarmError(.engineMismatch, "engine version \(hello.engineVersion) differs from the coordinator's \(EngineVersion.engine)"))
                return
            }
            // A worker's word is checked like a client's: no name that is not a pool's, at most 16.
            let pools = hello.pools ?? []
            guard pools.count <= 16 else { throw FarmError(.invalidInput, "pools: \(pools.count) given, at most 16") }
            for (index, pool) in pools.enumerated() { try PoolName.check(pool, at: "pools[\(index)]") }
            apply(scheduler.handle(.hello(identity, workerID: hello.workerID, host: hello.host, slots: hello.slots,
                                          encoders: hello.encoders, pools: Set(pools)), now: Self.now))
        case .heartbeat:
            let heartbeat = try? message.decode(Heartbeat.self)
            if let heartbeat, let worker = workers[identity] {
                activity.reported(residentKB: heartbeat.residentKB, cpuSeconds: heartbeat.cpuSeconds, by: worker.workerID, at: Self.now)
            }
            let framesDone = (heartbeat?.framesDone ?? []).prefix(64).reduce(into: [AttemptID: Int]()) { $0[$1.attemptID] = $1.frames }
            apply(scheduler.handle(.heartbeat(identity, draining: heartbeat?.draining == true, framesDone: framesDone), now: Self.now))
        case .chunk:
            let ready = try message.decode(ChunkReady.self)
            chunkAtHand = (ready, message.payload.first ?? Data())
            defer { chunkAtHand = nil }
            trace?.rendered(ready.attemptID, seconds: Double(ready.millis) / 1000)
            apply(scheduler.handle(.chunk(identity, ready.attemptID), now: Self.now))
        case .failed:
            let failure = try message.decode(ShardFailed.self)
            apply(scheduler.handle(.failed(identity, failure.attemptID, code: failure.code, reason: failure.reason), now: Self.now))
        case .mediaRequest:
            let request = try message.decode(MediaRequest.self)
            guard mayRead(request, from: identity) else { return }
            let candidate = scheduler.jobs.values.lazy.compactMap { job in
                job.spec.files.first { $0.value.contentID == request.contentID }.flatMap { job.paths[$0.key] }
            }.first
            let reader = mediaReader
            ioLane.post(key: "media " + request.contentID) {
                let (block, data) = reader.block(request, candidate: candidate)
                return .mediaBlock(block, data, to: identity, contentID: request.contentID)
            }
        default:
            throw FarmError(.malformed, "unexpected \(message.type.rawValue) message")
        }
    }
}
