import Foundation
import ReelTestSupport
import Testing

/// docs/scale.md, "Shard length": a farm sized with `--planned-slots` cuts a job that does
/// not say into shards of one keyframe interval when two would leave slots idle, and keeps
/// that choice with the job.
@Suite struct ShardLengthTests {
    @Test func aFarmSizedForMoreSlotsThanShardsCutsOneIntervalPerShardAndKeepsItAcrossARestart() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        // The same job planned by hand with one interval per shard, and with the default two.
        let shortGOP = FarmFixture.shortGOP
        for (name, gops) in [("one.mp4", "1"), ("two.mp4", "2")] {
            let r = try TestEnvironment.reel(["render", "s.json", "-o", name, "--in-process", "--workers", "1", "--shard-gops", gops]
                                             + shortGOP, in: farm.dir)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let one = try Data(contentsOf: URL(fileURLWithPath: farm.path("one.mp4")))
        let two = try Data(contentsOf: URL(fileURLWithPath: farm.path("two.mp4")))
        #expect(one != two, "the two plans must differ for this test to tell them apart")

        // Sized for 1,000 slots: the job is queued with no worker, the coordinator restarts
        // without the option, and the job still renders with one interval per shard.
        try farm.startCoordinator(["--planned-slots", "1000"])
        let job = try farm.submit()
        let planned = try farm.status(job)
        farm.killCoordinator()
        try farm.startCoordinator()
        try farm.startWorker("w")
        #expect(try farm.fetched(job) == one, "planned: \(planned)")

        // Without the option a job gets two intervals per shard, as before.
        let other = try farm.submit()
        #expect(try farm.fetched(other, "default.mp4") == two)
        // Sized for fewer slots than the 5 shards of two intervals: two.
        farm.killCoordinator()
        try farm.startCoordinator(["--planned-slots", "2"])
        let small = try farm.submit()
        #expect(try farm.fetched(small, "small.mp4") == two)
        // A job that says wins over the farm's choice; one out of range is refused.
        let said = try farm.submit(["--shard-keyframe-intervals", "1"])
        #expect(try farm.fetched(said, "said.mp4") == one)
        let refused = try farm.reel(["submit", "s.json", "--shard-keyframe-intervals", "33"])
        #expect(refused.status == 2 && refused.stderr.contains("--shard-keyframe-intervals 33 is outside 1 … 32"), "\(refused.stderr)")
    }
}
