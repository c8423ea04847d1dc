import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Fetch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Download a finished job's MP4 and sidecar (a per-segment job's files into the directory -o).")
    @Argument var job: String
    @OptionGroup var farm: CoordinatorOption
    @Option(name: .shortAndLong) var output: String
    @Flag(help: "Wait for the job to finish first.") var wait = false
    @Flag(help: "Remove the result from the coordinator once it is here.") var delete = false
    @Flag(help: "Print what was written as JSON: {jobID, output, sidecar, bytes}.") var json = false

    struct Written: Encodable {
        var jobID: String
        var output: String
        var sidecar: String?
        var bytes: Int64
    }

    func run() throws {
        let client = try farm.client()
        if wait { try followToDone(client, job, showProgress: false) }
        try farmCall { try client.fetch(job, to: output) }
        if delete { try farmCall { try client.deleteResult(job) } }
        if json {
            let sidecar = Sidecar.path(for: output)
            let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)?.int64Value ?? 0
            try printJSON(Written(jobID: job, output: output,
                                  sidecar: FileManager.default.fileExists(atPath: sidecar) ? sidecar : nil, bytes: size))
        }
    }
}
