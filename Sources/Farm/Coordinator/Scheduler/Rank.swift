/// A dispatchable job's place in line for a free slot: higher priority first; of equal
/// priority the one with fewer shards running (jobs share the workers), then the older,
/// then by id, so equal cases always go the same way.
struct Rank: Comparable {
    let id: String
    let priority: Int
    var running: Int
    let created: Double

    init(_ job: ScheduledJob) {
        (id, priority, running, created) = (job.id, job.priority, job.runningCount, job.created)
    }

    /// Whether `a` goes before `b`.
    static func < (a: Rank, b: Rank) -> Bool {
        (a.priority, -a.running, -a.created, b.id) > (b.priority, -b.running, -b.created, a.id)
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
