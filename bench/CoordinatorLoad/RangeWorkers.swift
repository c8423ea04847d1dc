import Farm
import Foundation
import RenderEngine
import SessionKit
import Synchronization

/// Many workers in this process that share no disk with the coordinator and render their
/// shards for real, reading their sources by ranges through the worker's own block
/// fetcher (one cache each): what the coordinator sends them is what real workers cost.
/// One event loop drives every socket; each shard renders on a thread of its own.
final class RangeWorkers: @unchecked Sendable {   // the sockets are used by `run`'s thread only
    let endpoint: String
    let count: Int
    let stop = StopSignal()
    private let cacheRoot: URL
    /// Chunks to send: (worker, message); filled by render threads.
    private let outbox = Mutex<[(Int, WireMessage)]>([])
    private let stats = Mutex(Stats())

    struct Stats {
        var firstChunk: Date?
        var chunks = 0
        var attempts = 0
        /// Attempts the coordinator cancelled (a backup elsewhere won).
        var cancelled = 0
        /// Times a worker was dropped and said hello again.
        var rejoined = 0
        var failures: [String] = []
        /// Σ over attempts (finished or not) of the distinct blocks their demuxers read.
        var blocksRead = 0
    }

    init(endpoint: String, count: Int, cacheRoot: URL) {
        self.endpoint = endpoint
        self.count = count
        self.cacheRoot = cacheRoot
    }

    var snapshot: Stats { stats.withLock { $0 } }

    func run() throws {
        let context = try ZMQContext()
        var sockets: [ZMQSocket] = []
        var fetchers: [RangeFetcher] = []
        let hello = { (i: Int) in
            try WireMessage(.hello, Hello(workerID: "range-\(i)", host: "load", slots: 1, capabilities: ["video", "audio"],
                                          engineVersion: EngineVersion.engine))
        }
        for i in 0..<count {
            let socket = try ZMQSocket(context, .dealer, sendTimeoutMillis: 5000)
            try socket.connect(endpoint)
            try socket.send(try hello(i).frames)
            let cache = cacheRoot.appendingPathComponent("worker-\(i)")
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            sockets.append(socket)
            fetchers.append(RangeFetcher(directory: cache, wakeup: try Wakeup()))
        }
        var lastBeat = Date()
        var stops: [String: StopSignal] = [:]
        while !stop.isRaised {
            let ready = try ZMQSocket.poll(sockets, timeoutMillis: 5)
            for (index, readable) in ready.enumerated() where readable {
                while let frames = try sockets[index].receive() {
                    let message = try WireMessage.parse(frames)
                    switch message.type {
                    case .shard:
                        let assignment = try message.decode(ShardAssignment.self)
                        let signal = StopSignal()
                        stops["\(index)/\(assignment.jobID)/\(assignment.shard)"] = signal
                        render(assignment, worker: index, fetcher: fetchers[index], stop: signal)
                    case .cancelShard:
                        let cancel = try message.decode(CancelShard.self)
                        stops.removeValue(forKey: "\(index)/\(cancel.jobID)/\(cancel.shard)")?.raise()
                    case .mediaBlock: _ = fetchers[index].deliver(try message.decode(MediaBlock.self), data: message.payload.first ?? Data())
                    case .refused:
                        // Dropped (silent too long while the coordinator was busy): join again, as a worker does.
                        self.stats.withLock { $0.rejoined += 1 }
                        try sockets[index].send(try hello(index).frames)
                    default: break
                    }
                }
            }
            for (index, fetcher) in fetchers.enumerated() {
                for request in fetcher.takeRequests() { try sockets[index].send(try WireMessage(.mediaRequest, request).frames) }
            }
            for (index, message) in outbox.withLock({ box in defer { box.removeAll() }; return box }) {
                try sockets[index].send(message.frames)
            }
            if Date().timeIntervalSince(lastBeat) > 0.5 {
                for socket in sockets { try socket.send(try WireMessage(.heartbeat, Heartbeat(busy: 0)).frames) }
                lastBeat = Date()
            }
        }
        for socket in sockets { socket.close() }
    }

    private func render(_ a: ShardAssignment, worker: Int, fetcher: RangeFetcher, stop: StopSignal) {
        let chunk = cacheRoot.appendingPathComponent("\(a.jobID)-\(a.shard)-\(a.attempt).mp4").path
        let thread = Thread { [self] in
            // A hundred render threads share this machine's cores; the event loop (like a
            // real worker's, which has its own machine) must still answer in time.
            runAsAnotherHost()
            defer { unlink(chunk) }
            let started = Date()
            self.stats.withLock { $0.attempts += 1 }
            let remote = a.spec.files.filter { a.spec.media.contains($0.key) }
            let sources = RemoteSources(remote, fetcher: fetcher, stop: stop)
            defer { self.stats.withLock { $0.blocksRead += sources.blocksRead } }
            do {
                var media: [String: MediaInput] = [:]
                for (reference, reader) in try sources.open() { media[reference] = .ranges(reader, name: reference) }
                _ = try ShardRenderer.render(a.spec, media: media, assets: [:], to: chunk) { _ in
                    if stop.isRaised { throw RenderCancelled() }
                }
                let bytes = try Data(contentsOf: URL(fileURLWithPath: chunk))
                let ready = ChunkReady(jobID: a.jobID, shard: a.shard, attempt: a.attempt, sha256: Digest.sha256(bytes),
                                       size: bytes.count, millis: Int(Date().timeIntervalSince(started) * 1000))
                let compressed = try LZ4Frame.compress(bytes)
                let payload = withExtendedLifetime(compressed) { Data(compressed.bytes) }
                let message = try WireMessage(.chunk, ready, payload: [payload])
                self.stats.withLock {
                    $0.firstChunk = $0.firstChunk ?? Date()
                    $0.chunks += 1
                }
                self.outbox.withLock { $0.append((worker, message)) }
            } catch is RenderCancelled {
                self.stats.withLock { $0.cancelled += 1 }
            } catch {
                self.stats.withLock { $0.failures.append("shard \(a.shard): \(error)") }
                let failed = try? WireMessage(.failed, ShardFailed(jobID: a.jobID, shard: a.shard, attempt: a.attempt, code: .renderFailed, reason: "\(error)"))
                if let failed { self.outbox.withLock { $0.append((worker, failed)) } }
            }
        }
        thread.stackSize = 4 << 20
        thread.start()
    }
}
