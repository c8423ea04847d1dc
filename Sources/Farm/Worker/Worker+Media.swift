import CZeroMQ
import Foundation
import Logging
import Metrics
import RenderEngine
import SessionKit

extension Worker {
    // MARK: Media

    func accept(_ work: Waiting) {
        waiting.append(work)
        startReady()
    }

    /// Starts every waiting shard whose files are all here (a video shard's source may be
    /// read by ranges instead); requests the first missing block otherwise.
    func startReady() {
        var still: [Waiting] = []
        for assignment in waiting {
            var files: [String: URL] = [:]
            var remote: [String: String] = [:]
            var missing: String?
            var hits = 0
            for (reference, contentID) in assignment.files {
                let path = assignment.paths[reference].flatMap { MediaStore.isInside($0, options.mediaRoots) ? $0 : nil }
                let trusted: FileStat? = if case .shard(let a) = assignment { a.pathStats[reference] } else { nil }
                if let url = cache.cached(contentID) {
                    files[reference] = url
                    hits += 1
                } else if let url = cache.inPlace(path, contentID: contentID, trusted: trusted) {
                    files[reference] = url
                } else if case .shard(let a) = assignment, a.spec.origins?[reference] != nil {
                    continue   // read from its origin by the render
                } else if case .shard(let a) = assignment, a.spec.media.contains(reference) {   // video and audio read by ranges
                    remote[reference] = contentID
                } else {
                    missing = contentID
                }
            }
            for (path, trusted) in cache.takeInPlaceNews() {
                logger.info("reading \(path) in place (\(trusted ? "its size and time match the coordinator's check: not hashed" : "hashed to check it"))")
            }
            if let missing {
                still.append(assignment)
                if fetches[missing] == nil { startFetch(missing) }
            } else {
                WorkerMetrics.mediaCacheHits.increment(by: Int64(hits))
                WorkerMetrics.mediaCacheMisses.increment(by: Int64(remote.count))
                switch assignment {
                case .shard(let shard): start(shard, files: files, remote: remote)
                case .stills(let request): stills.post(.serve(request, files: files))
                }
            }
        }
        waiting = still
    }

    func startFetch(_ contentID: String) {
        guard let partial = cache.partialURL(contentID) else {
            return failWaiting(on: contentID, FarmError(.invalidInput, "'\(contentID)' is not a content id"))
        }
        let handle: FileHandle
        do {
            guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                throw FarmError(.ioFailed, "cannot create \(partial.path)")
            }
            handle = try FileHandle(forWritingTo: partial)
        } catch {
            return failWaiting(on: contentID, FarmError(.ioFailed, "cannot fetch \(contentID) into the media cache: \(error)"))
        }
        fetches[contentID] = (handle, 0)
        WorkerMetrics.mediaCacheMisses.increment()
        logger.info("fetching \(contentID.prefix(19))… from the coordinator")
        send(.mediaRequest, MediaRequest(contentID: contentID, offset: 0, length: WireProtocol.blockSize))
    }

    /// A block of a whole-file fetch. Whatever fails (the coordinator lacks or cannot read
    /// the file, the cache cannot write it, the bytes do not match their content id) fails
    /// the work that waits for the file, with its code; the worker goes on.
    func received(_ block: MediaBlock, data: Data) {
        guard var fetch = fetches[block.contentID], block.offset == fetch.received else { return }
        do {
            if let error = block.error { throw error }
            if block.missing { throw FarmError(.missingMedia, "the coordinator does not have \(block.contentID)") }
            try fetch.handle.write(contentsOf: data)
            WorkerMetrics.mediaBytesFetched.increment(by: Int64(data.count))
            fetch.received += data.count
            fetches[block.contentID] = fetch
            if fetch.received < block.total, !data.isEmpty {
                send(.mediaRequest, MediaRequest(contentID: block.contentID, offset: fetch.received, length: WireProtocol.blockSize))
                return
            }
            fetches[block.contentID] = nil
            try fetch.handle.close()
            let inUse = Set(waiting.flatMap { $0.files.values })
            _ = try cache.complete(block.contentID, keeping: inUse)
            startReady()
        } catch {
            fetches[block.contentID] = nil
            try? fetch.handle.close()   // the partial file is abandoned: nothing to keep
            if let partial = cache.partialURL(block.contentID) { unlink(partial.path) }
            failWaiting(on: block.contentID, FarmError.from(error, fallback: .ioFailed))
        }
    }

    /// Every shard and still request waiting for `contentID` fails with `error`.
    func failWaiting(on contentID: String, _ error: FarmError) {
        let failing = waiting.filter { $0.files.values.contains(contentID) }
        waiting.removeAll { $0.files.values.contains(contentID) }
        logger.warning("\(failing.count) item(s) waiting for \(contentID.prefix(19))… failed: \(error)")
        for work in failing {
            switch work {
            case .shard(let a):
                send(.failed, ShardFailed(jobID: a.jobID, shard: a.shard, attempt: a.attempt, code: error.code, reason: error.message))
            case .stills(let r):
                send(.stillsReply, StillsReply(requestID: r.requestID, worker: options.workerID, results: [], invalid: nil,
                                               error: error, missing: []))
            }
        }
    }
}
