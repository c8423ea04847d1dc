import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Follow a job until it ends (exit 0 done, 1 failed or cancelled).")

    @Argument var job: String
    @OptionGroup var farm: CoordinatorOption

    func run() throws {
        let client = try farm.client()
        let printer = ProgressPrinter()
        let final = try farmCall { try client.watch(job) { printer.update($0) } }
        printer.finish()
        print("\(final.jobID) \(final.state)" + (final.error.map { ": \($0)" } ?? ""))
        if final.state != .done { throw Reported(code: ExitStatus.failure) }
    }
}
