import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show jobs (or one job) on a coordinator.")

    @Argument var job: String?
    @OptionGroup var farm: CoordinatorOption
    @Flag var json = false
    @Option(help: "Jobs listed, newest first: 1 to 1000.") var limit = 100
    @Option(help: "The cursor a previous page ended with, for the next page.") var after: String?

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit \(limit) is not from 1 to 1000") }
    }

    func run() throws {
        let client = try farm.client()
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
        for s in jobs {
            let shards = s.shards.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("\(s.jobID)  \(s.state)  \(s.framesDone)/\(s.totalFrames) frames  priority \(s.priority)  shards: \(shards)"
                  + (s.error.map { "  error: \($0)" } ?? "") + (s.paused.map { "  paused: \($0)" } ?? ""))
        }
        if job == nil, let next = reply.next { print("more: reel status --after \(next)") }
        if job == nil, let bytes = reply.stateBytes {
            print("state directory: \(String(format: "%.1f", Double(bytes) / 1_048_576)) MiB")
        }
    }
}
