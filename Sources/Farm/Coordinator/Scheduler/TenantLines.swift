/// One dispatch's tenants in line for free slots (docs/operations.md, "Tenants"), as YARN's
/// and Kueue's fair sharing do it: a free slot goes to the tenant furthest below its share
/// of the running shards — the fewest running per unit of its weight — and of tenants
/// equally placed, to the one served longest ago, so two tenants on one slot take turns
/// however deep either's queue. A tenant with an admin's urgent job (farm priority) goes
/// before every share. A tenant with nothing a worker can take is passed over, so an idle
/// share goes to the others, and comes back with the next free slot once it has work.
struct TenantLines {
    struct Line {
        let tenant: String
        let weight: Double
        /// Shards of the tenant running now, kept as this dispatch gives them out.
        var running: Int
        /// When the tenant last took a slot (`Scheduler`'s serial; 0: never).
        var served: Int
        /// The highest farm priority among its jobs with queued shards.
        let urgency: Int
        /// Its jobs, best first (`Rank`).
        var jobs: [Rank]

        /// Whether `self` takes a free slot before `other`.
        func precedes(_ other: Line) -> Bool {
            // running / weight compared without dividing: a × w' < a' × w.
            let (mine, theirs) = (Double(running) * other.weight, Double(other.running) * weight)
            return (urgency, -mine, -served, other.tenant) > (other.urgency, -theirs, -other.served, tenant)
        }
    }

    private(set) var lines: [Line]

    /// `dispatchable`: the jobs that may be given shards; `all`: every job, whose running
    /// shards count toward their tenants' use.
    init(dispatchable: some Sequence<ScheduledJob>, all: some Sequence<ScheduledJob>,
         weights: [String: Double], served: [String: Int]) {
        var running: [String: Int] = [:]
        for job in all { running[job.tenant, default: 0] += job.runningCount }
        var jobs: [String: [Rank]] = [:]
        var urgency: [String: Int] = [:]
        for job in dispatchable {
            jobs[job.tenant, default: []].append(Rank(job))
            if job.hasQueued { urgency[job.tenant] = max(urgency[job.tenant] ?? Int.min, job.farmPriority) }
        }
        lines = jobs.map { tenant, ranks in
            Line(tenant: tenant, weight: max(weights[tenant] ?? 1, 0.001), running: running[tenant] ?? 0,
                 served: served[tenant] ?? 0, urgency: urgency[tenant] ?? Int.min, jobs: ranks.sorted())
        }
    }

    /// The lines' indices in the order they take the next free slot.
    var order: [Int] { lines.indices.sorted { lines[$0].precedes(lines[$1]) } }

    /// Every dispatchable job, tenants in the order they take the next slot.
    var jobIDs: [String] { order.flatMap { lines[$0].jobs.map(\.id) } }

    /// The tenant of line `index` was given a shard of `job` at `serial`.
    mutating func gave(_ index: Int, job: String, serial: Int) {
        lines[index].running += 1
        lines[index].served = serial
        Rank.moveAfterAssignment(of: job, in: &lines[index].jobs)
    }
}
