import Foundation
import RenderEngine
import SessionKit

extension Coordinator {
    /// A client's questions and orders about jobs: status, following, cancelling,
    /// fetching, priorities, shards.
    func clientAsked(_ message: WireMessage, from identity: Data, credentials: PeerCredentials?) throws {
        switch message.type {
        case .status:
            let request = try message.decode(StatusRequest.self)
            let scope = ReadScope(credentials, naming: request.owner)
            if let id = request.jobID {
                let jobs = try statuses(id).filter { scope.sees($0.owner) }
                send(to: identity, .statusReply, StatusReply(jobs: jobs, stateBytes: housekeeping.stateBytes))
            } else {
                try statusList(request, scope: scope, for: identity)   // answered from the I/O lane's reads
            }
        case .watch:
            let request = try message.decode(JobRequest.self)
            let scope = ReadScope(credentials, naming: request.onBehalfOf)
            guard let status = try statuses(request.jobID).first, scope.sees(status.owner) else {
                throw FarmError(.noSuchJob, "no job \(request.jobID)")
            }
            if scheduler.jobs[request.jobID] != nil { watchers.add(identity, to: request.jobID) }
            send(to: identity, .progress, status)
        case .cancel:
            let request = try message.decode(JobRequest.self)
            try mayManage(request.jobID, credentials, onBehalfOf: request.onBehalfOf)
            try cancel(request.jobID, from: identity)
        case .fetch:
            let request = try message.decode(FetchRequest.self)
            try mayManage(request.jobID, credentials, onBehalfOf: request.onBehalfOf)
            try fetch(request, from: identity)
        case .deleteResult:
            let request = try message.decode(JobRequest.self)
            let jobID = request.jobID
            try mayManage(jobID, credentials, onBehalfOf: request.onBehalfOf)
            try deleteResult(of: jobID, for: identity)   // answered once the files are gone
        case .workers:
            replyWorkers(to: identity)
        case .releaseWorker:
            let request = try message.decode(ReleaseWorker.self)
            // Only the farm's operator decides a machine is well again.
            guard credentials.map({ $0.role == .admin }) ?? true else {
                throw FarmError(.forbidden, "only an admin releases a worker from quarantine")
            }
            guard scheduler.isQuarantined(request.workerID) else {
                let known = workers.values.contains { $0.workerID == request.workerID }
                throw known ? FarmError(.invalidInput, "worker \(request.workerID.prefix(80)) is not quarantined")
                    : FarmError(.notFound, "no worker \(request.workerID.prefix(80)) is connected or quarantined")
            }
            apply(scheduler.handle(.release(workerID: request.workerID), now: Self.now))
            replyWorkers(to: identity)
        case .setPriority:
            let request = try message.decode(SetPriority.self)
            try mayManage(request.jobID, credentials, onBehalfOf: request.onBehalfOf)
            guard (-1000...1000).contains(request.priority) else { throw FarmError(.invalidInput, "priority \(request.priority) is outside -1000 … 1000") }
            let farmWide = request.farmWide ?? false
            if farmWide {
                // Only the farm's operator puts a job ahead of every tenant's share.
                guard credentials.map({ $0.role == .admin }) ?? true, request.onBehalfOf == nil else {
                    throw FarmError(.forbidden, "only an admin sets a farm-wide priority; a client's priority orders its own jobs")
                }
                guard request.priority >= 0 else { throw FarmError(.invalidInput, "farm priority \(request.priority) is outside 0 … 1000") }
            }
            let change: StoreChange = farmWide ? .jobFarmPriority(request.jobID, request.priority) : .jobPriority(request.jobID, request.priority)
            if resumptions.setPriority(request.priority, farmWide: farmWide, of: request.jobID) {
                apply([.persist(change)])
                send(to: identity, .statusReply, StatusReply(jobs: try statuses(request.jobID)))
                return
            }
            guard scheduler.jobs[request.jobID] != nil else {
                throw try store.job(request.jobID) != nil ? FarmError(.alreadyEnded, "job \(request.jobID) has already ended")
                    : FarmError(.noSuchJob, "no job \(request.jobID)")
            }
            let event: Scheduler.Event = farmWide ? .setFarmPriority(request.jobID, priority: request.priority)
                : .reprioritize(request.jobID, priority: request.priority)
            apply(scheduler.handle(event, now: Self.now))
            send(to: identity, .statusReply, StatusReply(jobs: try statuses(request.jobID)))
        case .shards:
            let request = try message.decode(JobRequest.self)
            let jobID = request.jobID
            guard let job = try store.job(jobID) else { throw FarmError(.noSuchJob, "no job \(jobID)") }
            try ReadScope(credentials, naming: request.onBehalfOf).check(jobID, ownedBy: job.owner)
            let (queryStore, now) = (queryStore, Self.now)
            queryLane.post(key: "status " + identity.base64EncodedString(), label: "shards") {
                .reply(Result { try WireMessage(.shardsReply, ShardsReply(shards: try queryStore.shardDetails(of: jobID, now: now))) },
                       to: identity, type: .shards)
            }
        default:
            throw FarmError(.malformed, "unexpected \(message.type.rawValue) message")
        }
    }

    /// The workers as the loop knows them, with the store's count of shards each has done
    /// (read on the query lane).
    private func replyWorkers(to identity: Data) {
        let (queryStore, known) = (queryStore, workerStatuses())
        queryLane.post(key: "workers", label: "workers") {
            .reply(Result { try WireMessage(.workersReply, WorkersReply(workers: try queryStore.workerStatuses(known))) },
                   to: identity, type: .workers)
        }
    }
}
