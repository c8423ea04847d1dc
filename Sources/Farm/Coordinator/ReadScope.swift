import Foundation

/// Whose jobs a peer may read (docs/operations.md, "Tenants"): a client key its own only,
/// whatever it asks; an admin key (the HTTP API's gateway among them) or a peer of a farm
/// without keys every owner's, or the one it names for a token holder it serves. Another
/// tenant's job answers as an unknown one does, so an id tells nobody that it exists.
struct ReadScope: Equatable {
    /// The only owner whose jobs are seen; nil: every owner's.
    let owner: String?

    init(_ credentials: PeerCredentials?, naming named: String?) {
        owner = credentials?.role == .client ? credentials?.key : named
    }

    func sees(_ jobOwner: String?) -> Bool { owner.map { $0 == jobOwner } ?? true }

    /// What a job of `jobOwner` is to this peer: itself if it may see it, or unknown.
    func check(_ jobID: String, ownedBy jobOwner: String?) throws(FarmError) {
        guard sees(jobOwner) else { throw FarmError(.noSuchJob, "no job \(jobID)") }
    }
}
