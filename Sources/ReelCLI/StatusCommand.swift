import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show jobs (or one job, or one batch) on a coordinator.")

    @Argument(help: "A job id, or a batch id (b…): its variants' jobs.")
    var job: String?
    @OptionGroup var farm: CoordinatorOption
    @Flag var json = false
    @Option(help: "Jobs listed, newest first: 1 to 1000.") var limit = 100
    @Option(help: "The cursor a previous page ended with, for the next page.") var after: String?

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit \(limit) is not from 1 to 1000") }
    }

    func run() throws {
        let client = try farm.client()
        if let job, job.hasPrefix("b") { return try showBatch(job, client) }
        let reply = try farmCall { try client.statusReply(job, limit: limit, after: after) }
        let jobs = reply.jobs
        if let job, jobs.isEmpty {
            printError("error: no job \(job)")
            throw Reported(code: ExitStatus.invalidInput)
        }
        if json {
            try printJSON(job == nil ? AnyEncodable(jobs) : AnyEncodable(jobs[0]))
            return
        }
        for s in jobs { print(Self.line(s)) }
        if job == nil, let next = reply.next { print("more: reel status --after \(next)") }
        if job == nil, let bytes = reply.stateBytes {
            print("state directory: \(String(format: "%.1f", Double(bytes) / 1_048_576)) MiB")
        }
    }

    static func line(_ s: JobStatus) -> String {
        let counts = [("abandoned", s.shards.abandoned), ("done", s.shards.done), ("queued", s.shards.queued), ("running", s.shards.running)]
        let shards = counts.filter { $0.1 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        return "\(s.jobID)  \(s.state)  \(s.framesDone)/\(s.totalFrames) frames  priority \(s.priority)  shards: \(shards)"
            + (s.variant.map { "  variant \($0) of \(s.batch ?? "?")" } ?? "")
            + (s.error.map { "  error: \($0.message) (\($0.code.rawValue))" } ?? "") + (s.paused.map { "  paused: \($0.message)" } ?? "")
    }

    /// A batch: its totals, then a line per variant in order.
    private func showBatch(_ id: String, _ client: FarmClient) throws {
        guard let batch = try farmCall({ try client.batchStatus(id) }) else {
            printError("error: no batch \(id)")
            throw Reported(code: ExitStatus.invalidInput)
        }
        if json { return try printJSON(batch) }
        print("\(batch.batchID)  \(batch.state)  \(batch.framesDone)/\(batch.totalFrames) frames  "
              + "\(batch.variants.count) variants  \(batch.reusedShards) of \(batch.shards) shards reused")
        for variant in batch.variants { print("  " + Self.line(variant)) }
    }
}
