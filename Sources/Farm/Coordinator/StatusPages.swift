import Foundation

/// Pages of the job list (docs/protocol.md, "Client ⇄ coordinator"), as the leader's query
/// lane and a standby read them.
extension StatusRequest {
    /// Jobs in a page of the job list: 1 … 1000, 100 when the request does not say.
    var pageLimit: Int { min(max(limit ?? 100, 1), 1000) }

    /// Where the page starts: after the previous page's `next`.
    func cursor() throws -> JobStore.JobCursor? {
        try after.map { text in
            guard let parsed = JobStore.JobCursor(text) else { throw FarmError(.invalidInput, "'\(text.prefix(80))' is not a page cursor") }
            return parsed
        }
    }
}

extension StoredJob {
    /// The next page's cursor when this page of `limit` jobs is full.
    static func nextCursor(after rows: [StoredJob], limit: Int) -> String? {
        rows.count == limit ? rows.last.map { JobStore.JobCursor(created: $0.summary.created, id: $0.summary.id).text } : nil
    }
}
