import Foundation
import Logging
import RenderEngine
import SessionKit

/// A worker's thumbnail and frame server (docs/operations.md): one thread of its own, apart from
/// the render slots, so interactive requests are served at once even while every slot
/// renders. It owns the worker's `StillCache`; requests and invalidations reach it in the
/// order the coordinator sent them.
final class StillThread: Sendable {
    enum Job: Sendable {
        case serve(StillsRequest, files: [String: URL])
        case invalidate([String])
    }

    /// What the worker's loop and the still thread share.
    private final class Mailbox: Sendable {
        let jobs = Inbox<Job>()
        let replies = Inbox<(StillsReply, [Data])>()
        let wake = DispatchSemaphore(value: 0)
        let stop = StopSignal()
    }

    private let mailbox = Mailbox()

    init(directory: URL, limit: Int64, workerID: String, renderLog: String?, wakeup: Wakeup,
         logger: Logger) throws {
        // Opened here so that a bad cache directory fails the worker's start, then handed over.
        _ = try StillCache(directory: directory, limit: limit)
        let thread = Thread { [mailbox] in
            guard let cache = try? StillCache(directory: directory, limit: limit) else { return }
            let service = StillService(cache: cache, renderLog: renderLog)
            while !mailbox.stop.isRaised {
                _ = mailbox.wake.wait(timeout: .now() + .milliseconds(200))
                for job in mailbox.jobs.take() {
                    switch job {
                    case .serve(let request, let files):
                        let reply = Self.serve(request, files: files, service: service, workerID: workerID)
                        mailbox.replies.post(reply)
                        wakeup.signal()
                    case .invalidate(let ids):
                        let removed = (try? cache.invalidate(media: Set(ids))) ?? 0
                        logger.info("cleared \(removed) cached picture(s)")
                    }
                }
            }
        }
        thread.name = "stills"
        thread.stackSize = 4 << 20
        thread.start()
    }

    func post(_ job: Job) {
        mailbox.jobs.post(job)
        mailbox.wake.signal()
    }

    /// Replies ready to send, with one picture per result.
    func take() -> [(StillsReply, [Data])] {
        mailbox.replies.take()
    }

    func shutDown() { mailbox.stop.raise() }

    private static func serve(_ request: StillsRequest, files: [String: URL], service: StillService,
                              workerID: String) -> (StillsReply, [Data]) {
        var reply = StillsReply(requestID: request.requestID, worker: workerID, results: [], invalid: nil, error: nil, missing: [])
        do {
            let session = try SessionDocument.decode(Data(request.session.utf8))
            let loaded = LoadedSession.make(url: URL(fileURLWithPath: "/session.json"), session: session, files: files)
            guard loaded.report.isValid else {
                reply.invalid = loaded.report.problems.map(\.description).joined(separator: "; ")
                return (reply, [])
            }
            let served = try service.serve(loaded, contentIDs: request.files, requests: request.stills)
            reply.results = served.map(\.0)
            return (reply, try served.map { try Data(contentsOf: $0.1) })
        } catch let invalid as StillRequestError {
            reply.invalid = invalid.description
        } catch {
            reply.error = "\(error)"
        }
        return (reply, [])
    }
}
