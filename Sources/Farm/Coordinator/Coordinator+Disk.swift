import Foundation
import RenderEngine

extension Coordinator {
    /// Checks the state directory's free space (at most once a second): below the minimum,
    /// dispatch pauses with the reason in every running job's status, and resumes once
    /// space is back (docs/operations.md, "Disks").
    func checkDisk(force: Bool) {
        let now = Self.now
        guard force || now - lastDiskCheck >= 1 else { return }
        lastDiskCheck = now
        guard let free = DiskSpace.available(at: options.stateDirectory) else { return }
        let directory = options.stateDirectory.path
        if force { log("state directory \(directory): \(free) bytes free") }
        let pausedForDisk = scheduler.pauses[.diskFull] != nil
        if free < options.minimumFreeBytes {
            if !pausedForDisk {
                apply(scheduler.handle(.pause(.diskFull, detail: "the disk of \(directory) has \(free) bytes free, "
                    + "below the \(options.minimumFreeBytes) kept free"), now: now))
            }
        } else if pausedForDisk {
            apply(scheduler.handle(.resume(.diskFull), now: now))
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
