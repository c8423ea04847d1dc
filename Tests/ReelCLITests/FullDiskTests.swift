import Foundation
import ReelTestSupport
import Testing

/// Full disks under a real coordinator (docs/operations.md, "Disks"): a small tmpfs holds
/// the state (or its chunks). Mounting needs root; elsewhere these tests are skipped and
/// say why.
@Suite(.serialized, .enabled(if: TinyDisk.canMount, "mounting a tmpfs needs root (and the capability to mount)")) struct FullDiskTests {
    @Test func aChunkTheDiskRefusesFailsTheJobAndTheNextJobRenders() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        let chunks = farm.stateDir.appendingPathComponent("chunks")
        let disk = try TinyDisk(at: chunks, megabytes: 4)
        try disk.fill()
        try farm.startCoordinator()
        try farm.startWorker("a")
        let job = try farm.submit()
        #expect(try farm.waitUntil(60) { try farm.status(job)["state"] as? String == "failed" })
        let error = (try farm.status(job)["error"] as? [String: Any])?["message"] as? String ?? ""
        // Peers read the directory by its role, not its path on the coordinator.
        #expect(error.contains("cannot store the") && error.contains("in the coordinator's state directory/chunks/\(job)"), "\(error)")
        #expect(farm.log("coordinator.log").contains(chunks.path + "/" + job))
        #expect(error.contains("No space left on device"), "\(error)")
        #expect(!error.contains("file://"), "\(error)")
        // A failed job runs nothing and waits for nothing: its unfinished shards are abandoned.
        let shards = try farm.status(job)["shards"] as? [String: Int] ?? [:]
        #expect(shards["running"] == 0 && shards["queued"] == 0 && (shards["abandoned"] ?? 0) > 0, "\(shards)")
        // The coordinator goes on: with space again, the next job renders as a clean render does.
        try disk.empty()
        let next = try farm.submit()
        #expect(try farm.fetched(next) == (try farm.reference()))
        // The failed job's chunks were removed with it.
        #expect(!FileManager.default.fileExists(atPath: chunks.appendingPathComponent(job).path))
    }

    @Test func aCoordinatorOnAFullDiskStartsServesPausesAndResumes() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        let disk = try TinyDisk(at: farm.stateDir, megabytes: 24)
        let keep = ["--min-free-space", "4"]
        try farm.startCoordinator(keep)
        #expect(try farm.waitUntil(20) { farm.log("coordinator.log").contains("listening") })
        try disk.fill()
        #expect(try farm.waitUntil(10) { farm.log("coordinator.log").contains("dispatch paused: the disk of \(farm.stateDir.path)") })
        // Restarted on the full disk, it starts and says so.
        farm.killCoordinator()
        try farm.startCoordinator(keep)
        #expect(try farm.waitUntil(20) { farm.log("coordinator.log").contains("dispatch paused: the disk of \(farm.stateDir.path)") })
        #expect(farm.log("coordinator.log").contains("state directory \(farm.stateDir.path):"))
        try farm.startWorker("a")
        #expect(try farm.waitUntil(20) { farm.log("coordinator.log").contains("joined") })
        #expect(try farm.reel(["workers"]).status == 0)
        // Media that does not fit is refused with the numbers, and nothing is queued.
        let refused = try farm.reel(["submit", "s.json"] + FarmFixture.shortGOP)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("not enough disk space: the coordinator's state directory has"), "\(refused.stderr)")
        #expect(refused.stderr.contains("bytes free, and the upload of sha256:"), "\(refused.stderr)")
        let jobs = try farm.reel(["status", "--json"])
        let listed = try JSONSerialization.jsonObject(with: jobs.stdoutData) as? [Any]
        #expect(jobs.status == 0 && listed?.isEmpty == true, "\(jobs.stdout)")
        // Space back: dispatch resumes and a job renders as usual.
        try disk.empty()
        #expect(try farm.waitUntil(10) { farm.log("coordinator.log").contains("dispatch resumed") })
        let job = try farm.submit()
        #expect(try farm.fetched(job) == (try farm.reference()))
        #expect(farm.coordinator?.isRunning == true)
    }
}

/// A tmpfs of a few MiB mounted for one test, and a file that fills it.
final class TinyDisk {
    let mountPoint: URL
    private var filler: URL { mountPoint.appendingPathComponent("filler") }

    /// Root alone is not enough (a container may lack the capability): one trial mount.
    static let canMount: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount"),
              let trial = try? TestEnvironment.scratchDirectory("tmpfs-trial"),
              (try? ProcessRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", trial.path]))?.status == 0 else {
            return false
        }
        _ = try? ProcessRunner.run("/bin/umount", [trial.path])
        return true
    }()

    init(at mountPoint: URL, megabytes: Int) throws {
        self.mountPoint = mountPoint
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let r = try ProcessRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", mountPoint.path])
        guard r.status == 0 else { throw Failure("mount: \(r.stderr)") }
    }

    deinit { _ = try? ProcessRunner.run("/bin/umount", ["-l", mountPoint.path]) }

    /// Writes zeros until the file system is full (the writer's ENOSPC is the point).
    func fill() throws {
        _ = try ProcessRunner.run("/bin/sh", ["-c", "cat /dev/zero > '\(filler.path)'"])
        var stats = statvfs()
        guard statvfs(mountPoint.path, &stats) == 0, stats.f_bavail == 0 else { throw Failure("\(mountPoint.path) is not full") }
    }

    func empty() throws {
        try FileManager.default.removeItem(at: filler)
    }
}
