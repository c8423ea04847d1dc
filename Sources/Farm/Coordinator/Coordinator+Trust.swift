import CZeroMQ
import Foundation
import Logging
import RenderEngine
import SessionKit
import Synchronization

extension Coordinator {
    // MARK: Who may do what (docs/operations.md, "Trust")

    /// Who must have sent a file's bytes before it learns the file is stored or renders it
    /// (docs/api.md, "Uploading media"): a client key itself; for an admin (the HTTP API's
    /// gateway among them) or any peer of a farm without keys, the holder it names for a
    /// client it serves (`token:NAME`), or nobody when it acts for itself.
    static func mustShowMedia(_ credentials: PeerCredentials?, naming named: String? = nil) -> String? {
        guard let credentials else { return named }
        switch credentials.role {
        case .client: return credentials.key
        case .admin: return named
        case .worker: return credentials.key   // never reached: a worker sends no client messages
        }
    }

    /// Under CURVE only the client that submitted a job, or an admin, may cancel or fetch it.
    /// `onBehalfOf`: the owner an admin (or a peer of a farm without keys: the HTTP API)
    /// acts for, who must own the job: the API's ownership check in the request's own round trip.
    func mayManage(_ jobID: String, _ credentials: PeerCredentials?, onBehalfOf: String? = nil) throws {
        guard credentials != nil || onBehalfOf != nil else { return }
        let owner: String?
        if let job = scheduler.jobs[jobID] {
            owner = job.owner
        } else if let record = try store.job(jobID) {
            owner = record.owner
        } else {
            return   // no such job: the request says so itself
        }
        do {
            try Self.mayManage(jobID, ownedBy: owner, credentials, onBehalfOf: onBehalfOf)
        } catch {
            if let credentials { logLimited("not owner", "refused a \(credentials.role.rawValue) key \(credentials.key) acting on job \(jobID) of another client") }
            throw error
        }
    }

    /// Whether a peer may act on a job of `owner`: a client key on its own jobs, an admin
    /// key (or a farm without keys) on any, or on a named owner's (`onBehalfOf`: the HTTP
    /// API's token holder).
    static func mayManage(_ jobID: String, ownedBy owner: String?, _ credentials: PeerCredentials?, onBehalfOf: String?) throws(FarmError) {
        let actsFor = credentials == nil || credentials?.role == .admin ? onBehalfOf : nil
        if let actsFor {
            guard owner == actsFor else { throw FarmError(.noSuchJob, "no job \(jobID)") }
        } else if let credentials, !credentials.role.mayManage(jobOwnedBy: owner, as: credentials.key) {
            throw FarmError(.noSuchJob, "no job \(jobID)")   // another tenant's job is as unknown as one that is not there
        }
    }

    /// Media blocks go only to registered workers, and only of media that a shard or a
    /// still request they hold needs; a worker still fetching for work it no longer holds
    /// (cancelled, beaten by a backup) is told the media is not there, which ends its fetch.
    func mayRead(_ request: MediaRequest, from identity: Data) -> Bool {
        let contentID = request.contentID
        guard let worker = workers[identity] else {
            let line = "a media request from a peer that is not a worker"
            logLimited("forged media request", "refused \(line)")
            send(to: identity, .refused, FarmError(.unknownWorker, "unknown worker: say hello (refused \(line))"))
            return false
        }
        let forStill = stillsBroker.serves(identity, contentID: contentID)
        guard scheduler.job(reading: contentID, peer: identity) != nil || forStill else {
            logLimited("unneeded media", "\(worker.workerID) asked for \(contentID), which no work it holds needs")
            send(to: identity, .mediaBlock, MediaBlock(contentID: contentID, offset: request.offset, total: 0, missing: true),
                 payload: [Data()])
            return false
        }
        return true
    }

    /// An error as a peer may read it: the coordinator's own directories are not its
    /// business (docs/operations.md, "Trust"); content ids name the media.
    func publicText(_ error: Error) -> String { publicText("\(error)") }

    func publicText(_ message: String) -> String {
        Self.scrub(message, naming: publicDirectories)
    }

    /// The directories whose paths a client is told by name instead, innermost first.
    var publicDirectories: [(URL, String)] { options.publicDirectories }

    /// `message` with each directory's path, and its `file://` URL, told by name instead:
    /// what a client may read of the coordinator's disk. The innermost first (`media`
    /// inside the state directory).
    static func scrub(_ message: String, naming directories: [(URL, String)]) -> String {
        var text = message
        for (directory, name) in directories {
            let path = directory.standardizedFileURL.path
            // As a URL the path would read `file://the coordinator's state directory/…`.
            text = text.replacingOccurrences(of: "file://" + path, with: name)
            text = text.replacingOccurrences(of: path, with: name)
        }
        return text
    }

    /// Media bytes sent, by worker id and by job (docs/operations.md, "Media").
}
