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
            let origins = try store.spec(of: request.jobID).flatMap { try? JobSpec.decode(Data($0.utf8)) }?.files.compactMapValues(\.origin)
            try stills(StillsRequest(requestID: UUID().uuidString, session: record.session, files: record.files, paths: record.paths,
                                     stills: request.stills, origins: origins?.isEmpty == false ? origins : nil), from: identity)
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
