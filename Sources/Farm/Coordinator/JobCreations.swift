import Foundation
import RenderEngine
import SessionKit

/// Compiled submissions being made into jobs (docs/architecture.md, "The loop does not
/// block"). A new job's row is written first, then its shard rows a slice a turn, about
/// `sliceSeconds` of the loop's time (7,204 rows in one turn held it 20 ms); only then does
/// it join the scheduler and is its client answered. A job not written in its first turn
/// is recorded as being made, so that a restart cancels it rather than resume it short. A batch's variants are made one after
/// another the same way, and the batch answered once all are. The loop owns the queue;
/// the coordinator turns each step into store changes and scheduler events.
struct JobCreations {
    /// The loop's time for writing new jobs' rows in one turn.
    static let sliceSeconds = 0.002
    /// Rows written between two looks at the clock.
    static let rowsPerStep = 128

    /// A job whose shard rows are being written.
    struct PendingJob {
        var compiled: SubmissionCompiler.Compiled
        var record: JobStore.JobRecord
        var job: ScheduledJob
        var written = 0

        var isWritten: Bool { written == compiled.encodedTasks.count }

        /// The next rows to write, at most `rowsPerStep`.
        mutating func nextRows() -> StoreChange {
            let end = min(compiled.encodedTasks.count, written + JobCreations.rowsPerStep)
            defer { written = end }
            return .addShards(job: record.id, from: written, texts: compiled.encodedTasks[written..<end],
                              frames: compiled.spec.tasks[written..<end].map(\.frameCount)[...])
        }
    }

    /// One submission being made: a job, or a batch's jobs.
    struct Creation {
        enum Kind {
            case job
            case batch(BatchCreation)
        }

        let identity: Data
        var kind: Kind
        /// The job whose rows are being written now.
        var current: PendingJob?
        /// A single job recorded as being made (it took more than one turn).
        var recorded = false
    }

    private var queue: [Creation] = []

    var isEmpty: Bool { queue.isEmpty }

    mutating func add(_ creation: Creation) { queue.append(creation) }

    /// The oldest creation, to work on; `putBack` returns it to the front unfinished.
    mutating func takeFirst() -> Creation? { queue.isEmpty ? nil : queue.removeFirst() }

    mutating func putBack(_ creation: Creation) { queue.insert(creation, at: 0) }
}

/// A batch whose variants' jobs are being made.
struct BatchCreation {
    let batch: String
    /// The variants compiled, in order; `pending` those not begun yet.
    let compiled: [SubmissionCompiler.Compiled]
    var pending: ArraySlice<SubmissionCompiler.Compiled>
    var variants: [VariantJob] = []
    var reused = 0
    var shards = 0

    init(batch: String, pending: ArraySlice<SubmissionCompiler.Compiled>) {
        (self.batch, self.compiled, self.pending) = (batch, Array(pending), pending)
    }
}
