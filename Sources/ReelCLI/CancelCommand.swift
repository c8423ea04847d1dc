import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Cancel a job.")
    @Argument var job: String
    @OptionGroup var farm: CoordinatorOption
    @Flag(help: "Print the job's status as JSON.") var json = false

    func run() throws {
        let client = try farm.client()
        let status = try farmCall { try client.cancel(job) }
        if json, let status { try printJSON(status) } else { print("\(job) \(status?.state.rawValue ?? "cancelled")") }
    }
}
