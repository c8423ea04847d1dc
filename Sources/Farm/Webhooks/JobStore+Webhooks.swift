import Foundation

/// The webhook rows of the job store (docs/api.md, "Webhooks"). A row is made in the same
/// transaction that ends its job (`setJobState`); the deliverer, on its own connection,
/// reads what is due and records each attempt.
extension JobStore {
    /// `next_at` of a delivery with no next attempt.
    static let never = 9e15

    func dueWebhooks(now: Double, limit: Int = 16) throws -> [WebhookDelivery] {
        try db.query("""
            SELECT job_id, event, url, attempts, created FROM webhooks
            WHERE state=? AND next_at<=? ORDER BY next_at LIMIT ?
            """, [.text(WebhookState.pending.rawValue), .real(now), .integer(Int64(limit))]).compactMap { r in
            guard let job = r[0].string, let event = r[1].string, let url = r[2].string else { return nil }
            return WebhookDelivery(jobID: job, event: event, url: url, attempts: Int(r[3].int ?? 0), created: r[4].double ?? now)
        }
    }

    /// Before the request goes out: the attempt is counted and the next one scheduled, so
    /// a crash mid-request retries later rather than never.
    func beginWebhookAttempt(_ delivery: WebhookDelivery, retryAt: Double?) throws {
        try db.transaction {
            try db.query("UPDATE webhooks SET attempts=attempts+1, next_at=? WHERE job_id=? AND event=?",
                         [.real(retryAt ?? Self.never), .text(delivery.jobID), .text(delivery.event)])
        }
    }

    func endWebhookAttempt(_ delivery: WebhookDelivery, status: Int?, error: String?, delivered: Bool, givenUp: Bool, at time: Double) throws {
        let state: WebhookState = delivered ? .delivered : givenUp ? .failed : .pending
        try db.transaction {
            try db.query("""
                UPDATE webhooks SET state=?, last_status=?, last_error=?, delivered_at=? WHERE job_id=? AND event=?
                """, [.text(state.rawValue), status.map { .integer(Int64($0)) } ?? .null, error.map { .text($0) } ?? .null,
                      delivered ? .real(time) : .null, .text(delivery.jobID), .text(delivery.event)])
        }
    }

    public func webhook(of job: String) throws -> WebhookStatus? {
        try db.query("""
            SELECT event, state, attempts, last_status, last_error, next_at, delivered_at FROM webhooks WHERE job_id=?
            """, [.text(job)]).first.map { r in
            let next = r[5].double
            let state = try Self.parse(WebhookState.self, column: r[1].string, of: job)
            return WebhookStatus(event: r[0].string ?? "", state: state, attempts: Int(r[2].int ?? 0),
                                 lastStatus: r[3].int.map(Int.init), lastError: r[4].string,
                                 nextAt: state == .pending && (next ?? Self.never) < Self.never ? next : nil, deliveredAt: r[6].double)
        }
    }

    /// The job's final status as the webhook's body carries it (docs/api.md, "Webhooks").
    func webhookBody(_ delivery: WebhookDelivery) throws -> Data {
        struct Job: Encodable {
            var jobID: String
            var state: JobPhase?
            var totalFrames: Int64?
            var created: Double?
            var finished: Double?
            var error: String?
            var errorCode: FarmErrorCode?
            var owner: String?
        }
        struct Body: Encodable {
            var event: String
            var deliveryID: String
            var job: Job
        }
        let record = try jobSummary(delivery.jobID)
        let job = Job(jobID: delivery.jobID, state: record?.state, totalFrames: record?.totalFrames, created: record?.created,
                      finished: record?.finished, error: record?.error, errorCode: record?.state == .failed ? record?.errorCode : nil,
                      owner: record?.owner)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(Body(event: delivery.event, deliveryID: delivery.id, job: job))
    }
}
