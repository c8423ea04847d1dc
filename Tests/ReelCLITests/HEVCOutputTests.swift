import Foundation
import ReelTestSupport
import Testing

/// `--codec hevc` (docs/rendering.md, "HEVC output"): libx265 chunks, closed GOPs, `hvc1`,
/// Main profile; chunks from 1 or 3 workers concatenate without re-encoding into a stream
/// that decodes without an error, and the two files are the same bytes — while another
/// encoder keeps a core busy, so workers run in whatever order the scheduler gives them.
@Suite struct HEVCOutputTests {
    @Test func hevcChunksFromAnyNumberOfWorkersConcatenateDecodeAndAgree() throws {
        let fx = try RenderFixture()
        try fx.sample("a.mp4", ["--duration", "2", "--size", "160x96"])
        let load = try BusyMachine()
        try fx.session(#"{"video": {"videoSegments": [{"source": "a.mp4", "trimDuration": 1.5}, {"source": "a.mp4", "speedMultiplier": 2}]}}"#)
        let one = try fx.rendered(to: "one.mp4", ["--codec", "hevc", "--keyframe-interval", "0.5", "--workers", "1"])
        let three = try fx.rendered(to: "three.mp4", ["--codec", "hevc", "--keyframe-interval", "0.5", "--workers", "3"])
        let ffprobe = try #require(ProcessRunner.which("ffprobe"))
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        for file in [one, three] {
            let described = try ProcessRunner.run(ffprobe, ["-v", "error", "-select_streams", "v", "-count_frames", "-show_entries",
                                                            "stream=codec_name,profile,codec_tag_string,nb_read_frames", "-of", "csv=p=0", file])
            // 1.5 s + 2 s at 2× = 2.5 s at the source's 30 fps.
            #expect(described.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "hevc,Main,hvc1,75", "\(described.stdout)")
            let decoded = try ProcessRunner.run(ffmpeg, ["-v", "error", "-xerror", "-i", file, "-f", "null", "-"])
            #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
            // IDRs exactly every 15 frames: every chunk starts a closed GOP.
            let keys = try ProcessRunner.run(ffprobe, ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags",
                                                       "-of", "csv=p=0", file]).stdout.split(separator: "\n").map { $0.hasPrefix("K") }
            let expected = (0..<75).map { [0, 15, 30, 45, 60].contains($0) }
            #expect(keys == expected, "keyframes at \(keys.indices.filter { keys[$0] })")
        }
        let loaded = load.isRunning
        #expect(loaded, "the load ended before the renders did")
        #expect(try Data(contentsOf: URL(fileURLWithPath: one)) == Data(contentsOf: URL(fileURLWithPath: three)),
                "1 and 3 workers wrote different HEVC files")
    }

    /// ffmpeg encoding HEVC on one thread (one core always busy), to no file, for at most 10
    /// minutes. Spawned directly (posix_spawn), not as a Foundation `Process`: while one of
    /// those runs, Foundation on Linux does not report the end of the test's other processes.
    struct BusyMachine: ~Copyable {
        let pid: pid_t

        init() throws {
            let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
            let arguments = [ffmpeg, "-v", "quiet", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-t", "600",
                             "-threads", "1", "-filter_threads", "1", "-c:v", "libx265",
                             "-x265-params", "log-level=none:pools=1:frame-threads=1", "-f", "null", "-"]
            var argv = arguments.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var child: pid_t = 0
            let status = posix_spawn(&child, ffmpeg, nil, nil, &argv, environ)
            try #require(status == 0, "posix_spawn: \(status)")
            pid = child
        }

        var isRunning: Bool {
            var status: Int32 = 0
            return waitpid(pid, &status, WNOHANG) == 0
        }

        deinit {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }
}
