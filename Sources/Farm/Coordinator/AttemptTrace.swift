import Foundation
import SessionKit

/// `--trace FILE` (docs/operations.md, "Tracing a render"): one JSON line per job created,
/// per attempt ended and per job ended, as the coordinator decides them — the measured
/// costs a capacity model of the farm starts from (how long a shard takes by its size,
/// where time goes between dispatch and the chunk). The loop makes each line; a lane thread
/// of its own measures the chunk and appends the line, so the loop never waits on the
/// file. A file that cannot be written ends tracing (said once), never the coordinator.
final class AttemptTrace {
    /// One line. Times are Unix seconds; `chunkBytes` is the stored chunk's size.
    struct Line: Encodable, Sendable {
        /// What the line records; its raw value is the JSON.
        enum Event: String, Encodable, Sendable {
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
        /// A shard done with a chunk rendered before (the chunk cache, a twin): no worker's.
        var reused: Bool?
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

    private let writer: LaneThreads<SharedQueue<(line: Line, chunk: String?)>>
    private var started: [AttemptID: (worker: String, at: Double)] = [:]
    private var renderSeconds: [AttemptID: Double] = [:]
    private var probes: [String: (count: Int, seconds: Double, onWorkers: Int)] = [:]

    /// Opens `path` for appending (made if missing) on the writer's thread; `report` says
    /// once why the file could not be written.
    init(path: String, report: @escaping @Sendable (String) -> Void) throws {
        writer = try LaneThreads(name: "trace", queue: SharedQueue(), open: { _ -> FileHandle? in
            if !Disk.exists(path) {
                guard FileManager.default.createFile(atPath: path, contents: nil) else {
                    throw FarmError(.ioFailed, "cannot create the trace file \(path)")
                }
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
            return handle
        }, handle: { handle, item in
            guard let file = handle else { return }
            var line = item.line
            line.chunkBytes = item.chunk.flatMap(Disk.size(of:))
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                var data = try encoder.encode(line)
                data.append(0x0A)
                try file.write(contentsOf: data)
            } catch {
                handle = nil
                report("the trace file cannot be written (\(error)); tracing stops")
            }
        })
    }

    /// Writes the lines made so far, then closes the file.
    func close() { writer.drain() }

    /// Notes what a job's submission probed (its line follows).
    func noteProbes(job: String, count: Int, seconds: Double, onWorkers: Int) {
        probes[job] = (count, seconds, onWorkers)
    }

    /// Notes the worker's own time for an attempt whose chunk has arrived (its line follows).
    func rendered(_ key: AttemptID, seconds: Double) {
        if started[key] != nil { renderSeconds[key] = seconds }
    }

    /// Records what `change` says; `tasks(job)` gives a job's shard plan, `chunkPath` where
    /// a finished shard's chunk is (measured by the writer).
    func record(_ change: StoreChange, tasks: (String) -> [ShardTask]?, chunkPath: (AttemptID) -> String) {
        var line: Line?
        var chunk: String?
        switch change {
        case .createJob(let record, let plan):
            let probed = probes.removeValue(forKey: record.id)
            line = Line(event: .job, job: record.id, time: record.created, shards: plan.count, probes: probed?.count ?? 0,
                        probeSeconds: probed?.seconds ?? 0, probesOnWorkers: probed?.onWorkers ?? 0)
        case .startAttempt(let key, let worker, let time):
            started[key] = (worker, time)
        case .finishShard(let key, _, let source, let time):
            line = attemptLine(key, outcome: .done, worker: source.workerID, at: time, tasks: tasks)
            if source == .reused { line?.reused = true }
            chunk = chunkPath(key)
        case .endAttempt(let key, let outcome, _, let time) where outcome != .done:
            line = attemptLine(key, outcome: outcome, worker: started[key]?.worker, at: time, tasks: tasks)
        case .jobPhase(let job, let phase, _, let finished) where phase.isFinal:
            line = Line(event: .jobEnded, job: job, time: finished ?? Date().timeIntervalSince1970, state: phase)
            started = started.filter { $0.key.jobID != job }
            renderSeconds = renderSeconds.filter { $0.key.jobID != job }
        default:
            break
        }
        if let line { writer.queue.post((line, chunk)) }
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
