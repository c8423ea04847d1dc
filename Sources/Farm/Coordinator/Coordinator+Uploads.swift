import Foundation
import RenderEngine

extension Coordinator {
    /// On the loop, a block the I/O lane received: the client hears how far it is, and a
    /// complete upload is probed and recorded as shown by its client.
    func uploadReceived(_ received: Result<(received: Int, complete: Bool), any Error>, _ upload: Upload, from identity: PeerID,
                        holder: String?, hadIt: Bool) {
        do {
            let (count, complete) = try received.get()
            if complete, let file = media.uploaded(upload.contentID) {
                prober.post(contentID: upload.contentID, path: file.path)
            }
            if complete, let holder {
                holders.record(holder, upload.contentID)
                try store.recordHolder(holder, upload.contentID)
                if hadIt { log("client key \(holder) sent \(upload.contentID), which the store had: it may use it now") }
            }
            send(to: identity, .uploaded, Uploaded(contentID: upload.contentID, received: count, complete: complete))
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
