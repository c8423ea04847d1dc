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
