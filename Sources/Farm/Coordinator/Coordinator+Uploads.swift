import Foundation
import RenderEngine

extension Coordinator {
    /// On the loop, a block (or a handed-over file) the I/O lane received: the client hears
    /// how far it is, and a complete upload is probed and recorded as shown by its client.
    func uploadReceived(_ received: Result<Uploaded, any Error>, from identity: PeerID, holder: String?, hadIt: Bool) {
        do {
            let uploaded = try received.get()
            let contentID = uploaded.contentID
            // The prober finds whether the file is there (a sweep may have taken it since).
            if uploaded.complete, let file = media.uploadPath(contentID) {
                prober.post(contentID: contentID, path: file.path)
            }
            if uploaded.complete, let holder {
                holders.record(holder, contentID)
                try store.recordHolder(holder, contentID)
                if hadIt { log("\(holder) sent \(contentID), which the store had: it may use it now") }
            }
            send(to: identity, .uploaded, uploaded)
        } catch {
            refuse(.upload, from: identity, error)
        }
    }

    /// A request that failed: the peer hears the error as a peer may read it.
    func refuse(_ type: MessageType, from identity: PeerID, _ error: any Error) {
        logLimited("failed \(type.rawValue)", "\(type.rawValue) from a peer failed: \(error)")
        let farmError = FarmError.from(error)
        send(to: identity, .error, FarmError(farmError.code, publicText(farmError.message)))
    }
}
