import Foundation

/// The process's open-file limit (docs/operations.md, "Limits"). A coordinator's
/// descriptors go to peers, the store, HTTP connections and event streams; libzmq aborts
/// the process when it cannot get one, so the soft limit is raised to the hard one at start
/// and the HTTP side's budgets are sized to leave headroom below it.
public enum DescriptorLimit {
    /// Descriptors kept for the farm socket, the store, logs and the gateway's own
    /// connections, whatever the HTTP side is asked to hold.
    public static let headroom = 256

    /// Raises the soft limit to the hard one; returns the limit now in force.
    @discardableResult
    public static func raiseToHard() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
