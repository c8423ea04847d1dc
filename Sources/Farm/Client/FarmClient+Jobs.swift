import CZeroMQ
import Foundation
import RenderEngine
import SessionKit

extension FarmClient {
    // MARK: Jobs

    public func status(_ jobID: String? = nil) throws -> [JobStatus] {
        try statusReply(jobID).jobs
    }

    /// One job, or a page of the job list (newest first), and the size of the
    /// coordinator's state directory.
    public func statusReply(_ jobID: String? = nil, owner: String? = nil, limit: Int? = nil, after: String? = nil) throws -> StatusReply {
        try request(.status, StatusRequest(jobID: jobID, owner: owner, limit: limit, after: after)).decode(StatusReply.self)
    }

    /// Follows a job: `progress` with its status now and on each change; returns the final
    /// status, or the last one seen once `stop` is raised.
    public func watch(_ jobID: String, stop: StopSignal? = nil, progress: (JobStatus) -> Void) throws -> JobStatus {
        var status = try request(.watch, JobRequest(jobID: jobID)).decode(JobStatus.self)
        progress(status)
        while !status.isFinal, stop?.isRaised != true {
            do {
                status = try receive(timeout: 2).decode(JobStatus.self)
            } catch let failure as FarmError where failure.code == .noAnswer {
                // Quiet job (or a restarted coordinator): ask again.
                status = try request(.watch, JobRequest(jobID: jobID)).decode(JobStatus.self)
            }
            progress(status)
        }
        return status
    }

    public func cancel(_ jobID: String, onBehalfOf owner: String? = nil) throws -> JobStatus? {
        try request(.cancel, JobRequest(jobID: jobID, onBehalfOf: owner)).decode(StatusReply.self).jobs.first
    }

    /// Removes a finished job's result from the coordinator.
    public func deleteResult(_ jobID: String) throws {
        _ = try request(.deleteResult, JobRequest(jobID: jobID)).decode(StatusReply.self)
    }

    public func workers() throws -> [WorkerStatus] {
        try request(.workers, Empty()).decode(WorkersReply.self).workers
    }

    /// Lifts a worker's quarantine (an admin's key; docs/operations.md, "Sick workers") and
    /// answers the workers as they are then.
    public func releaseWorker(_ workerID: String) throws -> [WorkerStatus] {
        try request(.releaseWorker, ReleaseWorker(workerID: workerID)).decode(WorkersReply.self).workers
    }

    /// Downloads a finished job's MP4 and sidecar to `output`, or a per-segment job's files
    /// into the directory `output` (temporary names, then renamed).
    public func fetch(_ jobID: String, to output: String) throws {
        let names = try listFiles(jobID)
        guard names.isEmpty else { return try fetch(jobID, files: names, into: output) }
        let sidecar = Sidecar.path(for: output)
        let outputTemp = TemporaryOutput(finalPath: output), sidecarTemp = TemporaryOutput(finalPath: sidecar)
        do {
            try download(jobID, part: .output, to: outputTemp.path)
            try download(jobID, part: .sidecar, to: sidecarTemp.path)
            try sidecarTemp.commit()
            try outputTemp.commit()
        } catch {
            outputTemp.discard()
            sidecarTemp.discard()
            throw error
        }
    }

    /// The file names of a per-segment job's result (none for a whole job).
    func listFiles(_ jobID: String) throws -> [String] {
        let reply = try request(.fetch, FetchRequest(jobID: jobID, offset: 0, length: WireProtocol.blockSize, part: .files))
        do {
            return try JSONDecoder().decode([String].self, from: reply.payload.first ?? Data())
        } catch {
            throw FarmError(.malformed, "the coordinator's list of result files is not a JSON list of names")
        }
    }

    func fetch(_ jobID: String, files names: [String], into directory: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw FarmError(.ioFailed, "cannot create \(directory): \((error as NSError).localizedDescription)")
        }
        for name in names {
            guard !name.contains("/"), !name.hasPrefix(".") else { throw FarmError(.malformed, "refused result file name '\(name)'") }
            let target = TemporaryOutput(finalPath: URL(fileURLWithPath: directory).appendingPathComponent(name).path)
            do {
                try download(jobID, part: .file(name), to: target.path)
                try target.commit()
            } catch {
                target.discard()
                throw error
            }
        }
    }

    func download(_ jobID: String, part: ResultPart, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw FarmError(.ioFailed, "cannot write \(path)")
        }
        defer { try? handle.close() }
        var offset = 0
        while true {
            let reply = try request(.fetch, FetchRequest(jobID: jobID, offset: offset, length: WireProtocol.blockSize, part: part))
            let block = try reply.decode(ResultBlock.self)
            let data = reply.payload.first ?? Data()
            try handle.write(contentsOf: data)
            offset += data.count
            if offset >= block.total || data.isEmpty { break }
        }
    }
}
