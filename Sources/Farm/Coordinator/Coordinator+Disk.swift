import Foundation
import RenderEngine

extension Coordinator {
    /// Checks the state directory's free space (at most once a second): below the minimum,
    /// dispatch pauses with the reason in every running job's status, and resumes once
    /// space is back (docs/operations.md, "Disks").
    func checkDisk(force: Bool) {
        let now = Self.now
        guard diskGuard.due(now: now, force: force), let free = DiskSpace.available(at: options.stateDirectory) else { return }
        if force { log("state directory \(options.stateDirectory.path): \(free) bytes free") }
        if let event = diskGuard.event(free: free, pausedForDisk: scheduler.pauses[.diskFull] != nil) {
            apply(scheduler.handle(event, now: now))
        }
    }

    /// Why the state directory cannot take a job of this size now, or `nil`.
    func diskShortfall(for output: RenderFormat) -> String? {
        guard let free = DiskSpace.available(at: options.stateDirectory) else { return nil }
        let needed = StorageBudget.expectedBytes(output) + StorageBudget.outstandingBytes(scheduler.jobs.values)
        return StorageBudget.shortfall(free: free, needed: needed, keep: options.minimumFreeBytes,
                                       directory: options.stateDirectory.path)
    }
}
