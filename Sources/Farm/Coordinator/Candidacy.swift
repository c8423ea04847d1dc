import Foundation
import Logging

/// A coordinator on a shared store (docs/operations.md, "A standby coordinator"): it stands
/// by until it wins the lead, leads until it stops or loses the lead, and then stands by
/// again. Each lead is a `Coordinator` of its own that resumes the farm from the store, as
/// a restart does.
struct Candidacy {
    let options: Coordinator.Options
    let url: String
    let logger: Logger

    func run() throws {
        let name = "\(ProcessInfo.processInfo.hostName)-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        let lease = try LeaderLease(url: url, candidate: name)
        while !options.stop.isRaised {
            guard let term = try Standby(options: options, lease: lease, logger: logger).run() else { return }
            logger.info("leading the farm as \(name) (term \(term.number))")
            var leading = options
            leading.lead = (term, lease.seconds)
            do {
                try Coordinator(options: leading, logger: logger).run()
            } catch let lost as LeaseLost {
                logger.warning("\(lost): standing by again")
                continue
            }
            // A clean stop hands the lead over at once rather than after the lease.
            do {
                try lease.resign(term)
            } catch {
                logger.warning("could not give the lead up (\(error)): a standby leads once the lease runs out, within \(Int(lease.seconds)) s")
            }
            return
        }
    }
}
