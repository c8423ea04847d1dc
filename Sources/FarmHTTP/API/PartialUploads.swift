import Crypto
import Foundation

/// Where each API client's unfinished uploads wait (docs/api.md, "Uploading media"): one
/// file per client and content id, so one client's progress (`Upload-Offset`) says nothing
/// of another's. The folder is the coordinator's `api-uploads`, from which a whole file is
/// handed over by path. Who has shown which media is the coordinator's record, not this.
struct PartialUploads: Sendable {
    let directory: URL

    /// Whose possession of media the coordinator checks for `caller`: a token holder's
    /// (`token:NAME`); nobody's for an admin or the token-less loopback API, which hold everything.
    static func holder(_ caller: Caller) -> String? {
        caller.isAdmin ? nil : caller.owner
    }

    /// A client's folder: its name hashed (a token's holder name is not a path).
    private func folder(of owner: String) -> URL {
        let digest = SHA256.hash(data: Data(owner.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return directory.appendingPathComponent("owners").appendingPathComponent(digest)
    }

    /// Where `caller`'s unfinished upload of `contentID` waits.
    func partial(_ caller: Caller, _ contentID: String) -> URL {
        let hex = String(contentID.dropFirst("sha256:".count))
        guard let owner = Self.holder(caller) else { return directory.appendingPathComponent(hex + ".part") }
        return folder(of: owner).appendingPathComponent(hex + ".part")
    }
}
