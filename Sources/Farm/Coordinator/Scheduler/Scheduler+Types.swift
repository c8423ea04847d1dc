import Foundation
import Logging
import SessionKit

/// What goes into the scheduler and what comes out of it.
extension Scheduler {
    struct Limits: Sendable {
        var maxFailuresPerShard = 3
        /// A shard running this long on one worker gets a second attempt elsewhere once
        /// nothing is queued (the first valid chunk wins); nil: no backup copies (a farm
        /// whose workers share one machine, `reel render`'s).
        var backupAfterSeconds: Double? = 2.0
        /// A worker not heard from for this long is gone.
        var workerTimeoutSeconds = 3.0
        /// Shards given out in one tick at most: each is a message to encode and an attempt
        /// to write (about 0.23 ms), so a hundred idle workers meeting a new job of
        /// thousands of shards held the loop 39 ms; the rest go out on the next turns,
        /// which the shell runs at once (`moreToDispatch`; docs/operations.md, "Loop lag").
        var dispatchesPerTick = 24
        /// Each tenant's weight in the share of the slots (1 when not named; docs/operations.md,
        /// "Tenants"), from the token and key files.
        var tenantWeights: [String: Double] = [:]
        /// A worker with this many shards failed on it in `quarantineWindowSeconds` —
        /// failures not refuted by the same shard failing elsewhere — is quarantined for
        /// `quarantineSeconds` (docs/operations.md, "Sick workers").
        var quarantineStrikes = 3
        var quarantineWindowSeconds = 600.0
        var quarantineSeconds = 900.0
    }

    enum Event {
        /// Any message from a peer: it is alive.
        case heard(PeerID)
        case hello(PeerID, workerID: String, host: String, slots: Int, encoders: [String: String]? = nil, pools: Set<String> = [])
        /// `framesDone`: what its running attempts have encoded so far (their pace).
        case heartbeat(PeerID, draining: Bool, framesDone: [AttemptID: Int] = [:])
        /// A chunk arrived; if its attempt is wanted the shell verifies and stores it and
        /// reports one of the three outcomes below.
        case chunk(PeerID, AttemptID)
        case chunkStored(PeerID, AttemptID, sha256: String, peakRSSKB: Int?)
        case chunkRejected(PeerID, AttemptID, ChunkRejection)
        case chunkNotStored(PeerID, AttemptID, reason: String)
        case failed(PeerID, AttemptID, code: FarmErrorCode, reason: String)
        /// A new job (with its record to persist), or one resumed from the store (`nil`).
        case submitted(ScheduledJob, JobStore.JobRecord?)
        /// Queued shards whose chunks a lane is linking in: held back from dispatch.
        case linking(String, shards: [Int])
        /// Their links failed: they are rendered.
        case linkFailed(String, shards: [Int])
        /// Queued shards' chunks were found in the chunk cache (or a twin's) and put in place.
        case reused(String, chunks: [(shard: Int, sha256: String)])
        case cancel(String)
        /// A new priority for an unfinished job: it counts from the next dispatch.
        case reprioritize(String, priority: Int)
        /// An admin's farm-wide priority for an unfinished job (0: none): above 0 it goes
        /// before every tenant's share.
        case setFarmPriority(String, priority: Int)
        case assembled(String, error: FarmError?)
        case sendFailed(PeerID)
        /// A block of a medium went to a worker (for the attempt of its that reads it).
        case mediaSent(PeerID, contentID: String, range: Range<Int>)
        /// An operator lifts a worker's quarantine (`reel workers --release`).
        case release(workerID: String)
        /// Dispatch stops while any cause holds (the store cannot write, the disk is full);
        /// `detail` says why, for statuses and logs.
        case pause(PauseCause, detail: String)
        /// One cause has passed; dispatch resumes when none is left.
        case resume(PauseCause)
        /// Reap the silent, then dispatch.
        case tick
    }

    enum Message {
        case welcome
        case heartbeat(busy: Int)
        case shard(ShardAssignment)
        case cancelShard(job: String, shard: Int)
        case refused(FarmError)
    }

    enum Effect {
        case send(PeerID, Message)
        case persist(StoreChange)
        /// Verify the chunk at hand and write it, then report `chunkStored`, `chunkRejected`
        /// or `chunkNotStored`.
        case storeChunk(PeerID, AttemptID)
        case assemble(String)
        /// Watchers of the job get its status (`final`: they must, whatever the rate).
        case notify(String, final: Bool)
        /// The job has ended: its chunks are no longer needed.
        case discardChunks(String)
        case log(Logger.Level, String, LogIDs)
        /// A line that a misbehaving peer could repeat: written at a limited rate per kind.
        case logLimited(kind: String, String, LogIDs)
    }
}
