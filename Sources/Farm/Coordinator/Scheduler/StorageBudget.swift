import Foundation
import RenderEngine

/// How much of the state directory's disk a job needs (docs/operations.md, "Disks").
enum StorageBudget {
    /// A job's chunks plus its assembled result: twice the encoded video, budgeted at a
    /// quarter of a bit per pixel (x264 at the default CRF stays well under that on
    /// camera footage), plus 256 kbit/s of audio.
    static func expectedBytes(_ output: RenderFormat) -> Int64 {
        let pixels = Int64(output.width) * Int64(output.height) * output.frames
        let seconds = Double(output.frames) * output.frameDuration.doubleValue
        return 2 * (pixels / 32 + Int64(seconds * 32_000))
    }

    /// What jobs still running will write: each one's budget scaled by the frames to go.
    static func outstandingBytes(_ jobs: some Sequence<ScheduledJob>) -> Int64 {
        jobs.reduce(0) { total, job in
            let output = job.spec.output
            guard output.frames > 0 else { return total }
            let left = Double(output.frames - min(job.framesDone, output.frames)) / Double(output.frames)
            return total + Int64(Double(expectedBytes(output)) * left)
        }
    }

    /// Why a disk with `free` bytes, of which `keep` stay free, cannot take a job needing
    /// `needed` more, or `nil`. (Below `keep`, the coordinator hands out no shards: what
    /// is left is for the store, results being assembled and chunks on their way.)
    static func shortfall(free: Int64, needed: Int64, keep: Int64, directory: String) -> String? {
        guard free < needed + keep else { return nil }
        return "not enough disk space: \(directory) has \(free) bytes free, and this job needs about \(needed) more "
            + "(with \(keep) kept free)"
    }
}

/// Free space of the file system holding a path, as an unprivileged user may use it.
public enum DiskSpace {
    public static func available(at url: URL) -> Int64? {
        var stats = statvfs()
        guard statvfs(url.path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}
