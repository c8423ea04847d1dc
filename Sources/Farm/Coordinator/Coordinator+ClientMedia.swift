import Foundation
import RenderEngine
import SessionKit

extension Coordinator {
    /// A client's submission (compiled off the loop), its uploads (received on the I/O
    /// lane) and its questions about media.
    func clientSent(_ message: WireMessage, from identity: Data, credentials: PeerCredentials?) throws {
        switch message.type {
        case .submit:
            let submit = try message.decode(Submit.self)
            // Only an admin (or anyone on a farm without keys) may submit on another's behalf.
            let onBehalf = credentials.map { $0.role == .admin } ?? true
            // A second before the client's own time is up: its reply still has to reach it.
            let deadline = submit.answerWithin.map { Self.now + $0 - 1 }
            compiler.post(SubmissionCompiler.Request(identity: identity, submit: submit,
                                                     owner: onBehalf ? (submit.owner ?? credentials?.key) : credentials?.key,
                                                     holder: Self.mustShowMedia(credentials, naming: submit.holder), deadline: deadline))
        case .upload:
            let upload = try message.decode(Upload.self)
            if upload.offset == 0, let free = DiskSpace.available(at: options.stateDirectory),
               let shortfall = StorageBudget.shortfall(free: free, needed: Int64(upload.total), keep: options.minimumFreeBytes,
                                                       directory: options.stateDirectory.path) {
                throw FarmError(.storageFull, shortfall.replacingOccurrences(of: "this job", with: "the upload of \(upload.contentID)"))
            }
            // A client shows it holds a file by sending its bytes, even of one stored already.
            let holder = Self.mustShowMedia(credentials)
            // The loop's own store connection sees its writes at once; `holders` is for the
            // submissions threads'.
            let proving = try holder.map { try !store.holds($0, upload.contentID) } ?? false
            let (receiver, data, stored) = (media.receiver, message.payload.first ?? Data(), media.uploadPath(upload.contentID))
            ioLane.post(key: "upload " + upload.contentID) {
                let hadIt = proving && stored.map { Disk.exists($0.path) } == true
                return .uploaded(Result { try receiver.receive(upload, data: data, uploader: proving ? holder : nil) },
                                 from: identity, holder: holder, hadIt: hadIt)
            }
        case .adopt:
            let adopt = try message.decode(Adopt.self)
            guard let hex = MediaLocatorContentID.hex(adopt.contentID) else {
                throw FarmError(.invalidInput, "'\(adopt.contentID.prefix(80))' is not a content id")
            }
            let file = try HandedOverFile(adopt.path, in: options.apiUploads)
            let holder = Self.mustShowMedia(credentials, naming: adopt.holder)
            let proving = try holder.map { try !store.holds($0, adopt.contentID) } ?? false
            let (receiver, stored) = (media.receiver, media.uploadPath(adopt.contentID))
            ioLane.post(key: "upload " + adopt.contentID) {
                let hadIt = proving && stored.map { Disk.exists($0.path) } == true
                return .uploaded(Result { try receiver.adopt(file, contentID: adopt.contentID, hex: hex) }, from: identity, holder: holder,
                                 hadIt: hadIt)
            }
        case .mediaQuery:
            let query = try message.decode(MediaQuery.self)
            let shown = try Self.mustShowMedia(credentials, naming: query.holder).map { try store.holds($0, query.contentID) } ?? true
            // Whether the file is there is the lane's to find, after the upload's writes.
            let stored = media.uploadPath(query.contentID)
            ioLane.post(key: "upload " + query.contentID, label: "mediaQuery") {
                .reply(Result {
                    try WireMessage(.mediaState, MediaState(contentID: query.contentID, present: shown && stored.map { Disk.exists($0.path) } == true))
                }, to: identity, type: .mediaQuery)
            }
        default:
            throw FarmError(.malformed, "unexpected \(message.type.rawValue) message")
        }
    }
}
