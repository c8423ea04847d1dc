import Foundation
import SessionKit

/// What probing a medium found, kept by its content id (docs/architecture.md, "Probes by
/// content id"): the same bytes probe the same, so a medium is probed once, when its bytes
/// first reach the farm, and never again for a submission, a batch variant or a resubmission.
extension JobStore {
    public func probe(of contentID: String) throws -> MediaInfo? {
        guard let text = try db.query("SELECT info FROM media_probes WHERE content_id=?", [.text(contentID)]).first?.first?.string else {
            return nil
        }
        return try? JSONDecoder().decode(MediaInfo.self, from: Data(text.utf8))   // a row of another release: probed again
    }

    public func rememberProbe(_ info: MediaInfo, of contentID: String) throws {
        let text = String(decoding: try JSONEncoder().encode(info), as: UTF8.self)
        try db.query("INSERT INTO media_probes VALUES(?,?) ON CONFLICT(content_id) DO UPDATE SET info=excluded.info", [.text(contentID), .text(text)])
    }

    /// Forgets the probes of media the coordinator no longer keeps.
    public func forgetProbes(of contentIDs: [String]) throws {
        for id in contentIDs { try db.query("DELETE FROM media_probes WHERE content_id=?", [.text(id)]) }
    }
}
