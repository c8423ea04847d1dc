import ArgumentParser
import Farm
import Foundation

/// `reel priority JOB N [--farm]` (docs/operations.md, "Tenants"): a job's priority among
/// its owner's own jobs, or an admin's farm-wide priority ahead of every tenant's share.
struct Priority: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set an unfinished job's priority among its owner's jobs, or (an admin, --farm) ahead of every tenant's share.")
    @Argument var job: String
    @Argument(help: "-1000 … 1000 (higher first); with --farm 0 … 1000, 0 giving the job back to its tenant's share.")
    var priority: Int
    @Flag(name: .customLong("farm"), help: "An admin's farm-wide priority: while above 0 the job goes before every tenant's share.")
    var farmWide = false
    @OptionGroup var farm: CoordinatorOption
    @Flag(help: "Print the job's status as JSON.") var json = false

    func validate() throws {
        let range = farmWide ? 0...1000 : -1000...1000
        guard range.contains(priority) else {
            throw ValidationError("priority \(priority) is outside \(range.lowerBound) … \(range.upperBound)")
        }
    }

    func run() throws {
        let client = try farm.client()
        let status = try farmCall { try client.setPriority(job, priority, farmWide: farmWide) }
        if json, let status { try printJSON(status) } else {
            print("\(job) \(farmWide ? "farm priority" : "priority") \(farmWide ? status?.farmPriority ?? 0 : status?.priority ?? priority)")
        }
    }
}
