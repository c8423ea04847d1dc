import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Follow a job until it ends (exit 0 done, 1 failed or cancelled).")

    @Argument var job: String
    @OptionGroup var farm: CoordinatorOption

    @Flag(help: "Print each status as one JSON object a line (NDJSON), the last one final, instead of the bar.")
    var json = false

    func run() throws {
        let client = try farm.client()
        let final: JobStatus
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            final = try farmCall {
                try client.watch(job) { status in
                    if let line = try? encoder.encode(status) {   // a status always encodes
                        FileHandle.standardOutput.write(line + Data("\n".utf8))
                    }
                }
            }
        } else {
            let printer = ProgressPrinter()
            final = try farmCall { try client.watch(job) { printer.update($0) } }
            printer.finish()
            print("\(final.jobID) \(final.state)" + (final.error.map { ": \($0)" } ?? ""))
            if !final.workers.isEmpty {
                print("shards by worker: " + final.workers.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
        }
        if final.state != .done { throw Reported(code: ExitStatus.failure) }
    }
}
