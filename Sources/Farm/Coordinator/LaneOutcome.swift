import Foundation
import SessionKit

/// What a piece of the coordinator's I/O-lane work found (docs/architecture.md, "The I/O
/// lane"): a value the loop applies with one reducer (`Coordinator.apply(_:)`), never a
/// closure over the loop's state. Work that finds nothing to tell returns no outcome.
enum LaneOutcome: Sendable {
    /// A worker's chunk verified and written, or refused.
    case chunk(ChunkArrival, ready: ChunkReady, from: PeerID, key: AttemptID, cacheFailure: String?)
    /// Kept chunks linked in as queued shards' (reuse, twins), and those that could not be.
    case linked(job: String, from: String, linked: [ChunkLink], failed: [(ChunkLink, String)])
    /// An ended job's chunks could not be removed.
    case chunksNotRemoved(job: String, directory: String, reason: String)
    /// A block of a medium read for a worker.
    case mediaBlock(MediaBlock, Data, to: PeerID, contentID: String)
    /// A client's upload part received (or a handed-over file adopted).
    case uploaded(Result<Uploaded, any Error>, from: PeerID, holder: String?, hadIt: Bool)
    /// A reply made and encoded on the lane (a page of the job list, a batch's jobs, a
    /// job's shards, a block of a result or preview, a result's file names), or why it
    /// could not be: `type` is the request's, for the refusal.
    case reply(Result<WireMessage, any Error>, to: PeerID, type: MessageType)
    /// A finished job's result files removed for a client (`deleteResult`).
    case resultDeleted(job: String, failure: String?, to: PeerID)
    /// A still request's media checked: those missing.
    case stillMediaChecked(StillsRequest, from: PeerID, missing: [String])
    /// A finished job's still request, made from its stored plan.
    case jobStillRequest(Result<StillsRequest, any Error>, from: PeerID)
    /// A job of an older release compiled again from its session.
    case recompiled(ResumedJob, Result<LaneStore.Recompiled, any Error>)
    /// A job resumed after a restart: built, its kept chunks checked.
    case resumed(ResumedJob, Result<ResumedJob.Built, any Error>)
    /// The state directory listed and measured for a sweep, and which results are past
    /// `--keep-results`.
    case stateListed(StateListing, ended: Result<[EndedJob], any Error>, at: Double)
    /// A sweep's removals done.
    case swept(SweepRemovals)
}

/// A job that ended, and when.
struct EndedJob: Sendable {
    var id: String
    var finished: Double
}

/// What a sweep removed, and what it could not.
struct SweepRemovals: Sendable {
    var results: [EndedJob]
    var forgottenJobs: [String]
    var failures: [String]
    var uploads: [String]
    var at: Double
}
