import Foundation

extension Coordinator {
    /// The one place the loop applies what its I/O lane found (docs/architecture.md, "The
    /// I/O lane"): each outcome becomes scheduler events, replies or log lines here.
    func apply(_ outcome: LaneOutcome) {
        switch outcome {
        case .chunk(let arrival, let ready, let peer, let key, let cacheFailure):
            chunkArrived(arrival, ready: ready, from: peer, key, cacheFailure: cacheFailure)
        case .linked(let job, let source, let done, let failed):
            linked(job: job, from: source, linked: done, failed: failed)
        case .chunksNotRemoved(let job, let directory, let reason):
            log("could not remove the chunks of job \(job) in \(directory): \(reason)", LogIDs(job: job), level: .error)
        case .mediaBlock(let block, let data, let peer, let contentID):
            send(to: peer, .mediaBlock, block, payload: [data])
            countMediaSent(data.count, contentID: contentID, at: block.offset, to: peer)
        case .uploaded(let received, let peer, let holder, let hadIt):
            uploadReceived(received, from: peer, holder: holder, hadIt: hadIt)
        case .reply(.success(let message), let peer, _):
            send(message, to: peer)
        case .reply(.failure(let error), let peer, let type):
            refuse(type, from: peer, error)
        case .resultDeleted(let job, let failure, let peer):
            if let failure {
                refuse(.deleteResult, from: peer, FarmError(.ioFailed, "cannot remove the result of \(job): \(failure)"))
            } else {
                do {
                    send(to: peer, .statusReply, StatusReply(jobs: try statuses(job), stateBytes: housekeeping.stateBytes))
                } catch {
                    refuse(.deleteResult, from: peer, error)
                }
            }
        case .stillMediaChecked(let request, let client, let missing):
            stills(request, from: client, missing: missing)
        case .jobStillRequest(let made, let peer):
            do { try stills(try made.get(), from: peer) } catch { refuse(.jobStills, from: peer, error) }
        case .recompiled(let parts, let compiled):
            recompiled(parts, compiled)
        case .resumed(let parts, let built):
            resumed(parts, built)
        case .stateListed(let listing, let ended, let at):
            swept(listing, ended: ended, at: at)
        case .swept(let removals):
            sweepEnded(removals)
        }
    }
}
