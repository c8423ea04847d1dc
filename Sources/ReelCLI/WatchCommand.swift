import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Follow a job, or a batch, until it ends (exit 0 done, 1 failed or cancelled).",
        discussion: "A batch (an id from reel batch or POST /v1/batches, b…) shows its frames together and a line per variant as it ends.")

    @Argument(help: "A job id, or a batch id.")
    var job: String
    @OptionGroup var farm: CoordinatorOption

    @Flag(help: "Print each status as one JSON object a line (NDJSON), the last one final, instead of the bar.")
    var json = false
    @OptionGroup var preview: PreviewURLOptions

    func run() throws {
        if preview.previewURL {
            print(try farmCall { try preview.signedURL(job: job) })
            return
        }
        let client = try farm.client()
        if job.hasPrefix("b") { return try watchBatch(client) }
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
            printer.finish(succeeded: final.state == .done)
            print("\(final.jobID) \(final.state)" + (final.error.map { ": \($0.message)" } ?? ""))
            if !final.workers.isEmpty {
                print("shards by worker: " + final.workers.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
        }
        if final.state != .done { throw Reported(code: ExitStatus.failure) }
    }

    /// A batch: NDJSON of its statuses with --json, else the bar and a line per variant.
    private func watchBatch(_ client: FarmClient) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let printer = ProgressPrinter()
        var told: Set<String> = []
        let final = try farmCall {
            try client.watchBatch(job) { status in
                if json {
                    FileHandle.standardOutput.write(try encoder.encode(status) + Data("\n".utf8))
                    return
                }
                printer.update(status)
                for variant in status.variants where variant.isFinal && told.insert(variant.jobID).inserted {
                    printer.breakLine()
                    print("\(variant.variant ?? "?") \(variant.jobID) \(variant.state)" + (variant.error.map { ": \($0)" } ?? ""))
                }
            }
        }
        if !json {
            printer.finish(succeeded: final.variants.allSatisfy { $0.state == .done })
            print("\(final.batchID) \(final.state): \(final.reusedShards) of \(final.shards) shards reused")
        }
        if final.state != .done { throw Reported(code: ExitStatus.failure) }
    }
}
