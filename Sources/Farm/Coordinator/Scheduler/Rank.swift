/// A dispatchable job's place in its tenant's line (docs/operations.md, "Tenants"): an
/// admin's farm priority first, then the tenant's own priority; of equal priority the one
/// with fewer shards running (a tenant's jobs share its slots), then the older, then by
/// id, so equal cases always go the same way.
struct Rank: Comparable {
    let id: String
    let farmPriority: Int
    let priority: Int
    var running: Int
    let created: Double

    init(_ job: ScheduledJob) {
        (id, farmPriority, priority, running, created) = (job.id, job.farmPriority, job.priority, job.runningCount, job.created)
    }

    /// Whether `a` goes before `b`.
    static func < (a: Rank, b: Rank) -> Bool {
        (a.farmPriority, a.priority, -a.running, -a.created, b.id) > (b.farmPriority, b.priority, -b.running, -b.created, a.id)
    }

    /// `job` has one more shard running: it moves back past the jobs it now ranks after.
    static func moveAfterAssignment(of job: String, in order: inout [Rank]) {
        guard let index = order.firstIndex(where: { $0.id == job }) else { return }
        var rank = order.remove(at: index)
        rank.running += 1
        var low = index, high = order.count   // it can only move back
        while low < high {
            let middle = (low + high) / 2
            if order[middle] < rank { low = middle + 1 } else { high = middle }
        }
        order.insert(rank, at: low)
    }
}
