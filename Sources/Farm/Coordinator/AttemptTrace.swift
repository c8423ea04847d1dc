import Foundation
import SessionKit

/// `--trace FILE` (docs/operations.md, "Tracing a render"): one JSON line per job created,
/// per attempt ended and per job ended, as the coordinator decides them — the measured
/// costs a capacity model of the farm starts from (issue: how long a shard takes by its
/// size, where time goes between dispatch and the chunk). Appended as they happen; a file
/// that cannot be written ends tracing (said once), never the coordinator.
final class AttemptTrace {
    /// One line. Times are Unix seconds; `chunkBytes` is the stored chunk's size.
    struct Line: Encodable {
        /// What the line records; its raw value is the JSON.
        enum Event: String, Encodable {
            /// A job made: its shards, and the probes its submission made.
            case job
            /// A job ended: its `state`.
            case jobEnded
            /// An attempt ended: its `outcome`, worker and times.
            case attempt
        }

        var event: Event
        var job: String
        var time: Double
        var shard: Int?
        var attempt: Int?
        var kind: ShardTask.Kind?
        var segment: Int?
        var frames: Int64?
        var worker: String?
        var started: Double?
        var outcome: AttemptOutcome?
        var chunkBytes: Int64?
        /// The worker's own time for the attempt, from its task's arrival to its chunk made:
        /// what is not in it (dispatch, transfer, commit) is the farm's overhead.
        var renderSeconds: Double?
        var shards: Int?
        var state: JobPhase?
        /// On a job's line: the sources its submission probed (0 when every one was known
        /// by its content id), and the seconds that took.
        var probes: Int?
        var probeSeconds: Double?
        /// On a job's line: URL media new to the farm that the workers probed for it.
        var probesOnWorkers: Int?
    }

    private var handle: FileHandle?
    private var started: [AttemptID: (worker: String, at: Double)] = [:]
    private var renderSeconds: [AttemptID: Double] = [:]
    private var probes: [String: (count: Int, seconds: Double, onWorkers: Int)] = [:]
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// Opens `path` for appending (made if missing).
    init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw FarmError(.ioFailed, "cannot create the trace file \(path)")
            }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        self.handle = handle
    }

    /// Notes what a job's submission probed (its line follows).
    func noteProbes(job: String, count: Int, seconds: Double, onWorkers: Int) {
        probes[job] = (count, seconds, onWorkers)
    }

    /// Notes the worker's own time for an attempt whose chunk has arrived (its line follows).
    func rendered(_ key: AttemptID, seconds: Double) {
        if started[key] != nil { renderSeconds[key] = seconds }
    }

    /// Records what `change` says; `tasks(job)` gives a job's shard plan, `chunkBytes`
    /// the size of a stored chunk. Returns an error to report once when the file fails.
    func record(_ change: StoreChange, tasks: (String) -> [ShardTask]?, chunkBytes: (AttemptID) -> Int64?) -> (any Error)? {
        var line: Line?
        switch change {
        case .createJob(let record, let plan):
            let probed = probes.removeValue(forKey: record.id)
            line = Line(event: .job, job: record.id, time: record.created, shards: plan.count, probes: probed?.count ?? 0,
                        probeSeconds: probed?.seconds ?? 0, probesOnWorkers: probed?.onWorkers ?? 0)
        case .startAttempt(let key, let worker, let time):
            started[key] = (worker, time)
        case .finishShard(let key, _, let worker, let time):
            line = attemptLine(key, outcome: .done, worker: worker, at: time, tasks: tasks)
            line?.chunkBytes = chunkBytes(key)
        case .endAttempt(let key, let outcome, _, let time) where outcome != .done:
            line = attemptLine(key, outcome: outcome, worker: started[key]?.worker, at: time, tasks: tasks)
        case .jobPhase(let job, let phase, _, let finished) where phase.isFinal:
            line = Line(event: .jobEnded, job: job, time: finished ?? Date().timeIntervalSince1970, state: phase)
            started = started.filter { $0.key.jobID != job }
            renderSeconds = renderSeconds.filter { $0.key.jobID != job }
        default:
            break
        }
        guard let line, let handle else { return nil }
        do {
            var data = try encoder.encode(line)
            data.append(0x0A)
            try handle.write(contentsOf: data)
            return nil
        } catch {
            self.handle = nil
            return error
        }
    }

    private func attemptLine(_ key: AttemptID, outcome: AttemptOutcome, worker: String?, at time: Double,
                             tasks: (String) -> [ShardTask]?) -> Line {
        let task = tasks(key.jobID).flatMap { $0.indices.contains(key.shard) ? $0[key.shard] : nil }
        let opened = started.removeValue(forKey: key)
        return Line(event: .attempt, job: key.jobID, time: time, shard: key.shard, attempt: key.attempt, kind: task?.kind,
                    segment: task?.segment, frames: task?.frameCount, worker: worker ?? opened?.worker, started: opened?.at,
                    outcome: outcome, renderSeconds: renderSeconds.removeValue(forKey: key))
    }
}
