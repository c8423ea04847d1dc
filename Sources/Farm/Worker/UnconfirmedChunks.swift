import Foundation

/// Chunks a worker sent that the coordinator may not have taken (docs/operations.md, "A
/// standby coordinator"): a coordinator killed or frozen before its turn read them loses
/// them, and one that died with its disk lost the ones it stored. When the worker joins a
/// coordinator again (the new leader, or the same one restarted) it offers them again; one
/// whose shard still waits in the queue is taken, so nothing rendered is rendered twice.
/// A chunk counts as taken once the coordinator it was sent to has been heard from
/// `confirmSeconds` after (its loop would have read it by then), and at most `limitBytes`
/// are kept, the oldest leaving first.
struct UnconfirmedChunks {
    struct Sent {
        var ready: ChunkReady
        var buffer: OwnedBuffer
        var sentAt: Date
        /// The coordinator it was sent to.
        var to: String
    }

    private(set) var chunks: [Sent] = []
    private var bytes = 0
    let confirmSeconds: Double
    let limitBytes: Int

    init(confirmSeconds: Double, limitBytes: Int = 256 << 20) {
        self.confirmSeconds = confirmSeconds
        self.limitBytes = limitBytes
    }

    mutating func sent(_ ready: ChunkReady, _ buffer: OwnedBuffer, to coordinator: String, at time: Date) {
        chunks.append(Sent(ready: ready, buffer: buffer, sentAt: time, to: coordinator))
        bytes += buffer.count
        while bytes > limitBytes, let oldest = chunks.first {
            bytes -= oldest.buffer.count
            chunks.removeFirst()
        }
    }

    /// `coordinator` was heard at `time`: what it surely read by then is forgotten.
    mutating func heard(from coordinator: String, at time: Date) {
        guard chunks.contains(where: { $0.to == coordinator && time.timeIntervalSince($0.sentAt) >= confirmSeconds }) else { return }
        chunks.removeAll { $0.to == coordinator && time.timeIntervalSince($0.sentAt) >= confirmSeconds }
        bytes = chunks.reduce(0) { $0 + $1.buffer.count }
    }

    /// Every chunk kept, to offer again (and keep until confirmed, as before).
    mutating func takeForResending() -> [Sent] {
        let all = chunks
        chunks = []
        bytes = 0
        return all
    }
}
