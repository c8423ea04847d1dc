import Foundation
import ReelTestSupport
import Testing

/// docs/scale.md: the capacity model (`bench/farm-sim`). Cases whose answer follows from
/// arithmetic done here, by hand, and one real render the model must predict.
@Suite struct CapacityModelTests {
    /// Costs with every overhead zero unless a case sets it: a frame costs `frame` seconds.
    private func writeCosts(frame: Double, chunkBytesPerFrame: Double = 1_000, in dir: URL, _ extra: [String: Any] = [:]) throws -> String {
        var fields: [String: Any] = [
            "shard_fixed_seconds": 0, "default_frame_seconds": frame, "frame_seconds": [String: Double](),
            "audio_seconds_per_output_second": 0, "audio_fixed_seconds": 0, "chunk_bytes_per_frame": chunkBytesPerFrame,
            "dispatch_seconds": 0, "commit_seconds": 0, "commit_seconds_per_byte": 0, "handoff_seconds": 0,
            "job_start_seconds": 0, "probe_seconds_per_source": 0, "assembly_fixed_seconds": 0, "assembly_seconds_per_byte": 0,
        ]
        fields.merge(extra) { $1 }
        let data = try JSONSerialization.data(withJSONObject: fields)
        return try TestEnvironment.write(String(decoding: data, as: UTF8.self), to: "costs.json", in: dir)
    }

    private func predict(_ arguments: [String], in dir: URL) throws -> [String: Any] {
        let sim = TestEnvironment.packageRoot.appendingPathComponent("bench/farm-sim").path
        let r = try ProcessRunner.run("/usr/bin/env", ["python3", sim, "predict"] + arguments, directory: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        return try #require(report["prediction"] as? [String: Any])
    }

    @Test func computeBoundWorkSplitsEvenlyAcrossSlots() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let costs = try writeCosts(frame: 0.1, in: dir)
        // 7 clips of 4 s at 30 fps, shards of two 2-s keyframe intervals: 7 shards of 120
        // frames (under 8: no lead shard), 12 s each on a core; the audio costs nothing here.
        // 2 workers × 2 slots on 2 cores each run four at a time: two rounds, 24 s.
        let p = try predict(["--costs", costs, "--export", "7,4", "--workers", "2", "--slots", "2", "--cores", "2",
                             "--latency-ms", "0", "--no-backup-copies"], in: dir)
        let wall = try #require(p["wall_seconds"] as? Double)
        #expect(abs(wall - 24) < 0.05, "\(p)")
        #expect(p["limit"] as? String == "workers' CPU", "\(p)")
        // Slots beyond the cores share them: 1 worker, 4 slots, 2 cores: 84 s of work / 2 = 42 s.
        let shared = try predict(["--costs", costs, "--export", "7,4", "--workers", "1", "--slots", "4", "--cores", "2",
                                  "--latency-ms", "0", "--no-backup-copies"], in: dir)
        #expect(abs((shared["wall_seconds"] as? Double ?? 0) - 42) < 0.05, "\(shared)")
        // 8 clips: the first shard is cut at half an interval (docs/rendering.md, "The lead
        // shard"): 30 frames, so one slot stores the first chunk at 3 s, not 12 s.
        let lead = try predict(["--costs", costs, "--export", "8,4", "--workers", "1", "--slots", "1", "--cores", "1",
                                "--latency-ms", "0", "--no-backup-copies"], in: dir)
        #expect(abs((lead["first_chunk_seconds"] as? Double ?? 0) - 3) < 0.05, "\(lead)")
        #expect(abs((lead["wall_seconds"] as? Double ?? 0) - 96) < 0.05, "\(lead)")
        // Cores that slow each other when all are busy (core_efficiency 0.8): two 12-s shards
        // on one 2-core worker take 12 / 0.8 = 15 s.
        let slower = try writeCosts(frame: 0.1, in: dir, ["core_efficiency": 0.8])
        let contended = try predict(["--costs", slower, "--export", "2,4", "--workers", "1", "--slots", "2", "--cores", "2",
                                     "--latency-ms", "0", "--no-backup-copies"], in: dir)
        #expect(abs((contended["wall_seconds"] as? Double ?? 0) - 15) < 0.05, "\(contended)")
    }

    @Test func theCoordinatorsLinkBoundsMediaHeavyJobs() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let costs = try writeCosts(frame: 0.0001, chunkBytesPerFrame: 1, in: dir)
        // 4 clips of 4 s at 16 Mbit/s, a keyframe a second: each 120-frame shard starts on a
        // source keyframe and reads its 4 s × 2 MB/s plus 2 blocks of 64 KiB (header, index) =
        // 8,131,072 B; the audio track 16 s × 20 kB/s = 320,000 B: 32,844,288 B in all. Through
        // an 80 Mbit/s (10 MB/s) coordinator link that is 3.284 s, whatever the workers' CPUs do.
        let p = try predict(["--costs", costs, "--export", "4,4,16", "--workers", "8", "--slots", "1",
                             "--coordinator-mbps", "80", "--worker-mbps", "1000", "--latency-ms", "0", "--no-backup-copies"], in: dir)
        let wall = try #require(p["wall_seconds"] as? Double)
        #expect(abs(wall - 3.284) < 0.02, "\(p)")
        #expect(abs((p["coordinator_egress_bytes"] as? Double ?? 0) - 32_844_288) < 1_000, "\(p)")
        #expect(p["limit"] as? String == "coordinator's link out (media)", "\(p)")
        // Read by URL from a 160 Mbit/s (20 MB/s) origin: the coordinator sends nothing, 1.642 s.
        let byURL = try predict(["--costs", costs, "--export", "4,4,16", "--workers", "8", "--slots", "1", "--media-via", "origin",
                                 "--origin-mbps", "160", "--latency-ms", "0", "--no-backup-copies"], in: dir)
        #expect((byURL["coordinator_egress_bytes"] as? Double ?? 1) == 0, "\(byURL)")
        #expect(abs((byURL["wall_seconds"] as? Double ?? 0) - 1.642) < 0.02, "\(byURL)")
        #expect(byURL["limit"] as? String == "origin", "\(byURL)")
    }

    @Test func aBackupCopyCostsWhatItDecodedAndItsReadAhead() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let costs = try writeCosts(frame: 0.1, in: dir)
        // One clip of 4 s at 16 Mbit/s: one 120-frame shard of 12 s reading 8,131,072 B (as
        // above) and the sound's 80,000 B. The second worker's slot is idle once the sound is
        // done (at once). No video shard has finished, and the sound's time says nothing of a
        // video shard's (docs/scale.md, "Backup copies"), so the copy waits twice
        // backup_min_seconds (4 s); the straggler's pace says 8 s more, so the copy starts,
        // and is beaten at 12 s, having decoded 8/12 of the range and asked for 1 MiB beyond
        // it (16 blocks of 64 KiB: docs/scale.md, "Checked against real runs").
        let p = try predict(["--costs", costs, "--export", "1,4,16", "--workers", "2", "--slots", "1", "--cores", "1",
                             "--latency-ms", "0"], in: dir)
        #expect(p["backup_copies"] as? Int == 1, "\(p)")
        let range = 8_131_072.0
        let expected = range + 80_000 + range * 8 / 12 + 1_048_576
        #expect(abs((p["coordinator_egress_bytes"] as? Double ?? 0) - expected) < 10_000, "\(p)")
        #expect(abs((p["wall_seconds"] as? Double ?? 0) - 12) < 0.05, "\(p)")
    }

    @Test func rendersOfMoreThanOneCoreQueueForTheCores() throws {
        let dir = try TestEnvironment.scratchDirectory()
        // A render that takes 1.5 cores (its pictures beside its encoder): alone on a 2-core
        // worker its 120 frames take 12 s; two at once want 3 cores of 2, so each runs at 2/3
        // and both end at 18 s.
        let costs = try writeCosts(frame: 0.1, in: dir, ["cpu_per_render_second": 1.5])
        let alone = try predict(["--costs", costs, "--export", "1,4", "--workers", "1", "--slots", "2", "--cores", "2",
                                 "--latency-ms", "0", "--no-backup-copies"], in: dir)
        #expect(abs((alone["wall_seconds"] as? Double ?? 0) - 12) < 0.05, "\(alone)")
        let two = try predict(["--costs", costs, "--export", "2,4", "--workers", "1", "--slots", "2", "--cores", "2",
                               "--latency-ms", "0", "--no-backup-copies"], in: dir)
        #expect(abs((two["wall_seconds"] as? Double ?? 0) - 18) < 0.05, "\(two)")
    }

    @Test func aLongShardIsTheTailAndDeadWorkersCostTheirDetection() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let costs = try writeCosts(frame: 0.05, in: dir)
        // One 20-s clip in shards of 10 keyframe intervals: one shard of 600 frames, 30 s, that
        // 100 workers cannot share.
        let tail = try predict(["--costs", costs, "--export", "1,20", "--shard-gops", "10", "--workers", "100",
                                "--latency-ms", "0"], in: dir)
        #expect(abs((tail["wall_seconds"] as? Double ?? 0) - 30) < 0.1, "\(tail)")
        #expect(tail["limit"] as? String == "the tail: one video shard", "\(tail)")
        // Every attempt's worker dies, after half its shard on average, and is noticed 3 s
        // later: more attempts than shards and a longer wall, and still every shard done.
        let failing = try predict(["--costs", costs, "--export", "4,4", "--workers", "4", "--slots", "1",
                                   "--failure-rate", "0.5", "--seed", "7", "--latency-ms", "0"], in: dir)
        let calm = try predict(["--costs", costs, "--export", "4,4", "--workers", "4", "--slots", "1", "--latency-ms", "0"], in: dir)
        #expect((failing["failures"] as? Int ?? 0) > 0 && (failing["attempts"] as? Int ?? 0) > (calm["attempts"] as? Int ?? 0))
        #expect((failing["wall_seconds"] as? Double ?? 0) > (calm["wall_seconds"] as? Double ?? 0) + 3, "\(failing) \(calm)")
        #expect(abs((calm["wall_seconds"] as? Double ?? 0) - 6) < 0.05, "4 shards of 6 s on 4 slots: \(calm)")
    }

    /// The three serial steps of docs/scale.md: the audio track one task or in pieces, the
    /// probes at submission or on arrival, the file written after the last chunk or as the
    /// chunks arrive.
    @Test func audioPiecesKnownMediaAndOverlappedAssemblyTakeTheSerialStepsAway() throws {
        let dir = try TestEnvironment.scratchDirectory()
        // Pictures cost nothing; sound 0.1 s of a core per second it encodes; probing 0.5 s a
        // source; the file written at 1 s per MB after the last chunk, or as chunks arrive at
        // no cost and 0.05 s for the index. 4 clips of 15 s, 60 s in all.
        let costs = try writeCosts(frame: 0.000_001, chunkBytesPerFrame: 1_000, in: dir, [
            "audio_seconds_per_output_second": 0.1, "probe_seconds_per_source": 0.5,
            "assembly_after_seconds_per_byte": 1e-6, "assembly_fixed_seconds": 0.05,
        ])
        // Links fast enough that reading media takes no time.
        let farm = ["--costs", costs, "--export", "4,15", "--workers", "8", "--slots", "1", "--latency-ms", "0", "--no-backup-copies",
                    "--worker-mbps", "1000000", "--coordinator-mbps", "1000000"]
        // Before: one audio task of 60 s (6 s), 4 sources probed two at a time (1 s), then
        // 1,800 frames × 1,000 B written at 1 s per MB (1.8 s + 0.05 s): 8.85 s.
        let before = try predict(farm + ["--audio", "one-task", "--media", "new-on-coordinator", "--assembly", "after"], in: dir)
        #expect(abs((before["wall_seconds"] as? Double ?? 0) - 8.85) < 0.01, "\(before)")
        #expect(before["limit"] as? String == "the tail: the audio track", "\(before)")
        // Now: 15-s clips at speed 1 are cut inside every 4 s (docs/rendering.md, "Audio in
        // pieces"): 13 pieces. The longest begin inside a clip and end inside the next, e.g.
        // 12 → 19 s: from 5.12 s before its first kept packet (564: 576,512 − 245,760 =
        // 330,752) to 3 frames past its last ((892 + 3) · 1024 = 916,480), 12.203 s, and its
        // 0.48-s pre-roll: 12.683 s, 1.268 s of a core. On 8 slots the first 8 pieces start at
        // once; the tenth, one of those, starts when the second (8.085 s: 0.809 s) ends, and
        // ends at 2.077 s; the index 0.05 s: 2.127 s, with nothing probed.
        let now = try predict(farm, in: dir)
        #expect(abs((now["wall_seconds"] as? Double ?? 0) - 2.127) < 0.005, "\(now)")
        #expect(now["probe_seconds"] as? Double == 0, "\(now)")
        // New media add their probes before the job exists: on the coordinator's 2 cores,
        // 1 s; on the 8 workers, one round (0.5 s) after the loop's tick (0.1 s).
        let onCoordinator = try predict(farm + ["--media", "new-on-coordinator"], in: dir)
        #expect(abs((onCoordinator["wall_seconds"] as? Double ?? 0) - 3.127) < 0.005, "\(onCoordinator)")
        let new = try predict(farm + ["--media", "new"], in: dir)
        #expect(abs((new["wall_seconds"] as? Double ?? 0) - 2.727) < 0.005, "\(new)")
    }

    @Test func badFarmsAreRefusedWithTheOptionNamed() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let costs = try writeCosts(frame: 0.1, in: dir)
        let sim = TestEnvironment.packageRoot.appendingPathComponent("bench/farm-sim").path
        for (arguments, message) in [(["--workers", "0"], "--workers 0 must be above 0"),
                                     (["--shard-gops", "x"], "--shard-gops x is not auto or a whole number from 1"),
                                     (["--failure-rate", "1"], "--failure-rate 1.0 is outside 0 … <1")] {
            let r = try ProcessRunner.run("/usr/bin/env", ["python3", sim, "predict", "--costs", costs, "--export", "2,4"] + arguments,
                                          directory: dir)
            #expect(r.status == 2 && r.stderr == "farm-sim: error: \(message)\n", "\(r.stderr)")
        }
    }
}
