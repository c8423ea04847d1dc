import Foundation
import RenderEngine
import SessionKit

/// A job as clients see it: its status, and its result's files read for them.
extension Coordinator {
    /// The job's status, or none if there is no such job: one job's few queries, on the loop.
    func statuses(_ id: String) throws -> [JobStatus] {
        try store.jobSummary(id).map { [try status(of: $0)] } ?? []
    }

    /// Every job of a batch, in its variants' order, or a page of the job list, newest
    /// first (docs/protocol.md, "Client ⇄ coordinator"): at most `limit` (1 … 1000, default
    /// 100) after the request's cursor, and the cursor of the next page when this one is
    /// full. Read, made and encoded on the query lane (its own store connection: a query or
    /// three a job) from a copy of what the loop knows of running jobs (`JobStatusMaker`);
    /// the loop only sends the bytes.
    func statusList(_ request: StatusRequest, scope: ReadScope, for identity: PeerID) throws {
        let (queryStore, maker, stateBytes) = (queryStore, statusMaker(), housekeeping.stateBytes)
        if let batch = request.batch {
            queryLane.post(key: "status " + identity.base64EncodedString(), label: "status batch") {
                .reply(Result {
                    let jobs = try queryStore.batch(batch, live: maker.live.keys).filter { scope.sees($0.summary.owner) }
                        .map { maker.status(of: $0.summary, stored: $0) }
                    return try WireMessage(.statusReply, StatusReply(jobs: jobs, stateBytes: stateBytes))
                }, to: identity, type: .status)
            }
            return
        }
        let (limit, cursor, owner) = (request.pageLimit, try request.cursor(), scope.owner)
        queryLane.post(key: "status " + identity.base64EncodedString(), label: "status page") {
            .reply(Result {
                let rows = try queryStore.page(owner: owner, after: cursor, limit: limit, live: maker.live.keys)
                let jobs = rows.map { maker.status(of: $0.summary, stored: $0) }
                return try WireMessage(.statusReply, StatusReply(jobs: jobs, stateBytes: stateBytes, next: StoredJob.nextCursor(after: rows, limit: limit)))
            }, to: identity, type: .status)
        }
    }

    func status(of record: JobStore.JobSummary) throws -> JobStatus {
        let stored = try StoredJob(record, in: store, live: scheduler.jobs[record.id] != nil)
        return statusMaker(only: record.id).status(of: record, stored: stored)
    }

    func fetch(_ request: FetchRequest, from identity: Data) throws {
        guard let record = try store.job(request.jobID) else {
            throw FarmError(.noSuchJob, "no job \(request.jobID)")
        }
        let path: String
        let gone: FarmError
        if let file = Self.previewFiles[request.part] {
            // A preview is read while the job runs, and after it is done (docs/api.md, "Live preview").
            path = previewDirectory(job: request.jobID).appendingPathComponent(file).path
            gone = FarmError(.resultGone, "job \(request.jobID) has no preview: it is not one file, it was not begun yet, or it was removed")
            readBlock(of: path, request, from: identity, gone: gone)
            return
        }
        guard record.state == .done else {
            let phase = scheduler.jobs[request.jobID]?.phase ?? record.state
            throw FarmError(phase.isFinal ? .alreadyEnded : .notEnded, "job \(request.jobID) is \(phase.rawValue), not done")
        }
        let directory = resultPath(job: request.jobID, layout: .segments)
        let output = resultPath(job: request.jobID).path
        switch request.part {
        case .output: path = output
        case .sidecar: path = Sidecar.path(for: output)
        case .preview, .previewMedia: return   // read above
        case .files:
            // Listed on the I/O lane: a directory of thousands of segments is not read on the loop.
            ioLane.post(key: "result " + request.jobID, label: "result files") {
                .reply(Result {
                    let names: [String]
                    do {
                        names = Disk.exists(directory.path) ? try Disk.list(directory.path).filter(Self.isResultFileName).sorted() : []
                    } catch {
                        throw FarmError(.ioFailed, "cannot list the result's files: \(FileErrorText.describe(error))")
                    }
                    let list = try JSONEncoder().encode(names)
                    return try WireMessage(.resultBlock, ResultBlock(offset: 0, total: list.count), payload: [list])
                }, to: identity, type: .fetch)
            }
            return
        case .file(let name):
            guard Self.isResultFileName(name) else {
                throw FarmError(.invalidInput, "no file '\(name.prefix(64))' of a result: its files are segment-NNN.mp4")
            }
            path = directory.appendingPathComponent(name).path
        }
        gone = FarmError(.resultGone, missingResultReason(record))
        readBlock(of: path, request, from: identity, gone: gone)
    }

    /// The parts of a live preview a client reads: its index and its file of segments.
    static let previewFiles: [ResultPart: String] = [.preview: LivePreview.Index.fileName, .previewMedia: LivePreview.Index.mediaFileName]

    /// Sends a block of `path` (`gone` if there is no such file), read on the I/O lane: a
    /// block is up to 4 MiB from the disk.
    func readBlock(of path: String, _ request: FetchRequest, from identity: Data, gone: FarmError) {
        ioLane.post(key: "result " + request.jobID) {
            .reply(Result {
                guard let handle = FileHandle(forReadingAtPath: path) else { throw gone }
                defer { try? handle.close() }   // read-only: closing cannot lose data
                let total = Int(try handle.seekToEnd())
                try handle.seek(toOffset: UInt64(max(0, min(request.offset, total))))
                let data = try handle.read(upToCount: max(0, min(request.length, WireProtocol.blockSize))) ?? Data()
                return try WireMessage(.resultBlock, ResultBlock(offset: request.offset, total: total), payload: [data])
            }, to: identity, type: .fetch)
        }
    }
}
