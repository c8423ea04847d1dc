import Foundation
import Metrics

/// The coordinator's metrics (docs/operations.md, "Metrics"): counters follow the store
/// changes the scheduler asks for (each once, when asked), gauges are sampled once a
/// second from the scheduler's state.
extension Coordinator {
    func count(_ change: StoreChange) {
        switch change {
        case .createJob(let record, let tasks):
            CoordinatorMetrics.jobsSubmitted.increment()
            CoordinatorMetrics.jobFrames(record.id).record(tasks.reduce(0) { $0 + $1.frameCount })
        case .jobPhase(let job, let phase, _, _) where phase.isFinal:
            CoordinatorMetrics.jobsEnded(phase).increment()
            CoordinatorMetrics.jobFrames(job).destroy()
            CoordinatorMetrics.jobFramesDone(job).destroy()
        case .finishShard(let key, _, let source, _):
            if case .worker(let worker) = source {
                CoordinatorMetrics.shardsDone.increment()
                if let job = scheduler.jobs[key.jobID], job.tasks.indices.contains(key.shard) {
                    CoordinatorMetrics.framesRendered.increment(by: job.tasks[key.shard].frameCount)
                    activity.rendered(job.tasks[key.shard].frameCount, by: worker)
                }
            } else {
                CoordinatorMetrics.shardsReused.increment()
            }
        case .endAttempt(_, .failed, _, _):
            CoordinatorMetrics.shardsFailed.increment()
        default:
            break
        }
    }

    /// Each tenant's queued and running shards; a tenant whose jobs have all ended loses its series.
    private func sampleTenants() {
        var byTenant: [String: (queued: Int, running: Int)] = [:]
        for job in scheduler.jobs.values {
            let name = job.tenant.isEmpty ? "-" : job.tenant
            byTenant[name, default: (0, 0)].queued += job.counts.queued
            byTenant[name, default: (0, 0)].running += job.counts.running
        }
        for (tenant, shards) in byTenant {
            CoordinatorMetrics.tenantShards(tenant, .queued).record(shards.queued)
            CoordinatorMetrics.tenantShards(tenant, .running).record(shards.running)
        }
        for gone in reportedTenants.subtracting(byTenant.keys) {
            CoordinatorMetrics.tenantShards(gone, .queued).destroy()
            CoordinatorMetrics.tenantShards(gone, .running).destroy()
        }
        reportedTenants = Set(byTenant.keys)
    }

    /// Each pool's queued and running shards (`""`: jobs of no pool); a pool whose jobs
    /// have all ended reads 0.
    private func samplePools() {
        var byPool: [String: (queued: Int, running: Int)] = [:]
        for job in scheduler.jobs.values {
            let pool = job.pool ?? ""
            byPool[pool, default: (0, 0)].queued += job.counts.queued
            byPool[pool, default: (0, 0)].running += job.counts.running
        }
        for pool in reportedJobPools.union(byPool.keys) {
            let shards = byPool[pool] ?? (0, 0)
            CoordinatorMetrics.poolShards(pool, .queued).record(shards.queued)
            CoordinatorMetrics.poolShards(pool, .running).record(shards.running)
        }
        reportedJobPools = Set(byPool.keys)
    }

    /// Once a second: jobs, shards, workers and slots as they are now.
    func sampleGauges(now: Double) {
        let connected = Set(workers.values.map(\.workerID))
        guard activity.sample(now: now, framesDone: scheduler.jobs.mapValues(\.framesDone), connected: connected) else { return }
        var phases: [JobPhase: Int] = [:]
        var shards = ShardCounts()
        for job in scheduler.jobs.values {
            phases[job.phase, default: 0] += 1
            for state in ShardState.allCases { shards[state] += job.counts[state] }
            CoordinatorMetrics.jobFrames(job.id).record(job.tasks.reduce(0) { $0 + $1.frameCount })
            CoordinatorMetrics.jobFramesDone(job.id).record(job.framesDone)
        }
        for phase in [JobPhase.queued, .rendering, .assembling] { CoordinatorMetrics.jobs(phase).record(phases[phase] ?? 0) }
        sampleTenants()
        samplePools()
        for state in ShardState.allCases { CoordinatorMetrics.shards(state).record(shards[state]) }
        let busy = workers.values.reduce(0) { $0 + $1.running.count }
        let total = workers.values.reduce(0) { $0 + $1.slots }
        CoordinatorMetrics.workers.record(workers.count)
        var byState: [WorkerAvailability: Int] = [:]
        var byPool: [String: Int] = [:]
        for worker in workers.values {
            byState[scheduler.availability(of: worker), default: 0] += 1
            for pool in worker.pools.isEmpty ? [""] : Array(worker.pools) { byPool[pool, default: 0] += 1 }
        }
        for state in WorkerAvailability.allCases { CoordinatorMetrics.workers(state).record(byState[state] ?? 0) }
        // A pool whose last worker left reads 0.
        for pool in reportedPools.union(byPool.keys) { CoordinatorMetrics.poolWorkers(pool).record(byPool[pool] ?? 0) }
        reportedPools = Set(byPool.keys)
        CoordinatorMetrics.slots("busy").record(busy)
        CoordinatorMetrics.slots("free").record(max(0, total - busy))
        CoordinatorMetrics.dispatchPaused.record(scheduler.paused == nil ? 0 : 1)
        CoordinatorMetrics.framesPerSecond.record(activity.framesPerSecond)
    }
}
