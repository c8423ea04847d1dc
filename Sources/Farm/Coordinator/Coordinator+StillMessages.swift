import Foundation
import RenderEngine
import SessionKit

extension Coordinator {
    /// Thumbnails and frames: a client's request, a job's stills, a worker's reply, an
    /// invalidation.
    func stillsMessage(_ message: WireMessage, from identity: Data, credentials: PeerCredentials?) throws {
        switch message.type {
        case .stills: try stills(message.decode(StillsRequest.self), from: identity, holder: Self.mustShowMedia(credentials))
        case .jobStills:
            let request = try message.decode(JobStillsRequest.self)
            guard let record = try store.job(request.jobID) else { throw FarmError(.noSuchJob, "no job \(request.jobID)") }
            try mayManage(request.jobID, credentials)
            let (session, files, paths) = (record.session, record.files, record.paths)
            let still = { @Sendable (origins: [String: OriginObject], pool: String?) in
                var made = StillsRequest(requestID: UUID().uuidString, session: session, files: files, paths: paths,
                                         stills: request.stills, origins: origins.isEmpty ? nil : origins)
                made.pool = pool
                return made
            }
            // A running job's plan is in memory; a finished one's is read and decoded on the
            // I/O lane, never on the loop (a plan of thousands of shards takes milliseconds).
            if let job = scheduler.jobs[request.jobID] {
                return try stills(still(job.spec.files.compactMapValues(\.origin), job.pool), from: identity)
            }
            let laneStore = laneStore
            ioLane.post(key: "job " + request.jobID, label: "job stills") {
                .jobStillRequest(Result { let context = try laneStore.stillContext(ofJob: request.jobID); return still(context.origins, context.pool) },
                                 from: identity)
            }
        case .stillsReply: stillsReply(try message.decode(StillsReply.self), payload: message.payload, from: identity)
        case .invalidate:
            let request = try message.decode(InvalidateRequest.self)
            // A client key clears only the pictures of media it has sent: another's stay cached.
            if let holder = Self.mustShowMedia(credentials),
               let unshown = try request.contentIDs.first(where: { try !store.holds(holder, $0) }) {
                throw FarmError(.notOwner, "this client key has not sent \(unshown.prefix(80)): it may clear only pictures of its own media")
            }
            invalidate(request, from: identity)
        default:
            throw FarmError(.malformed, "unexpected \(message.type.rawValue) message")
        }
    }
}
