/// The loop's part of housekeeping (docs/operations.md, "Housekeeping"): when the last
/// sweep ran and whether one is out on the I/O lane, the state directory's size it
/// measured, and the ended jobs still to forget.
struct Housekeeping {
    private var lastSweep = 0.0
    private var sweeping = false
    /// Disk space of everything under the state directory, at the last sweep.
    var stateBytes: Int64?
    var pruning = Pruning()

    /// Whether a sweep is due `period` seconds after the last, none being out: then it is.
    mutating func beginSweep(now: Double, period: Double) -> Bool {
        guard !sweeping, now - lastSweep >= period else { return false }
        (lastSweep, sweeping) = (now, true)
        return true
    }

    mutating func sweepEnded() { sweeping = false }
}

/// What the loop has left to forget of ended jobs (docs/operations.md, "Housekeeping"):
/// the jobs past `--keep-jobs` a sweep chose, oldest first, and the cutoff of the
/// idempotency answers kept as long. The coordinator deletes their rows a few statements a
/// turn (`Coordinator.continuePruning`), never all at once.
struct Pruning {
    /// The loop's time for deleting rows in one turn.
    static let sliceSeconds = 0.001

    var jobs: [String] = []
    var answersBefore: Double?

    var isEmpty: Bool { jobs.isEmpty && answersBefore == nil }

    mutating func add(_ ended: [String], answersBefore cutoff: Double) {
        jobs += ended
        answersBefore = max(answersBefore ?? cutoff, cutoff)
    }
}
