import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Cancel a job.")
    @Argument var job: String
    @OptionGroup var farm: CoordinatorOption

    func run() throws {
        let client = try farm.client()
        let status = try farmCall { try client.cancel(job) }
        print("\(job) \(status?.state.rawValue ?? "cancelled")")
    }
}
