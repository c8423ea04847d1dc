import Foundation

/// The state directory's free space against the minimum kept free (docs/operations.md,
/// "Disks"), checked at most once a second: below it, dispatch pauses with the reason in
/// every running job's status; above it again, dispatch resumes. A value: it decides,
/// the coordinator measures and carries the event out.
struct DiskGuard {
    let directory: String
    let minimumFree: Int64
    private var lastCheck = -Double.infinity

    init(directory: String, minimumFree: Int64) {
        self.directory = directory
        self.minimumFree = minimumFree
    }

    /// Whether a check is due (`force`: always).
    mutating func due(now: Double, force: Bool) -> Bool {
        guard force || now - lastCheck >= 1 else { return false }
        lastCheck = now
        return true
    }

    /// The scheduler event `free` bytes call for, given whether dispatch is paused for the disk now.
    func event(free: Int64, pausedForDisk: Bool) -> Scheduler.Event? {
        if free < minimumFree {
            return pausedForDisk ? nil
                : .pause(.diskFull, detail: "the disk of \(directory) has \(free) bytes free, below the \(minimumFree) kept free")
        }
        return pausedForDisk ? .resume(.diskFull) : nil
    }
}
