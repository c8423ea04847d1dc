import Foundation
import RenderEngine
import SessionKit
import ReelTestSupport
import Synchronization
import Testing
@testable import Farm

/// The coordinator's loop never waits on a disk or a hash (docs/architecture.md, "The I/O
/// lane"), and says how long it kept work waiting (docs/operations.md, "Loop lag").
@Suite(.serialized) struct LoopLagTests {
    @Test func aMessageWaitsFromWhenTheLoopCouldFirstHaveSeenIt() {
        var clock = LoopClock(now: 100, timerPeriod: 0.1)
        // A poll that waited 50 ms and returned on a message: it arrived then.
        clock.polled(started: 100, returned: 100.05)
        #expect(abs(clock.messageWait(handledAt: 100.051) - 0.001) < 1e-9)
        // The turn was busy until 100.4; the next poll returns at once: its messages may
        // have come just after the last poll returned.
        clock.polled(started: 100.4, returned: 100.4002)
        #expect(abs(clock.messageWait(handledAt: 100.41) - 0.36) < 1e-9)
        // The periodic work was due at 100.1: it ran 0.31 s late, and is due again 0.1 s on.
        #expect(clock.timerFired(at: 100.41).map { abs($0 - 0.31) < 1e-9 } == true)
        #expect(clock.timerFired(at: 100.45) == nil)
        #expect(clock.timerFired(at: 100.51).map { abs($0) < 1e-9 } == true)
    }

    @Test func theSummaryHasTheQuantilesWithinABinAndTheExactMaximum() {
        let lag = LoopLag()
        for _ in 0..<98 { lag.record(0.001) }
        lag.record(0.02)
        lag.record(0.3)
        let summary = lag.summary
        #expect(summary.count == 100 && summary.max == 0.3)
        #expect(summary.p50 >= 0.001 && summary.p50 < 0.001 * 1.26)
        #expect(summary.p99 >= 0.02 && summary.p99 < 0.02 * 1.26)
        lag.reset()
        #expect(lag.summary.count == 0)
    }

    /// A debug build stops when the loop's thread hashes a chunk-sized buffer.
    @Test func hashingOnTheLoopStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            LoopGuard.enterLoop()
            _ = Digest.sha256(Data(count: 2 << 20))
        }
        // Off the loop, or small on it, it is only a hash.
        #expect(Digest.sha256(Data(count: 2 << 20)).count == 64)
        await #expect(processExitsWith: .success) {
            LoopGuard.enterLoop()
            _ = Digest.sha256(Data(count: 100))
        }
    }

    /// Each kind of blocking call the guard watches stops a debug build on the loop's
    /// thread: a file-system call (`Disk`), a statement over more than a handful of rows,
    /// and the engine's hashing of a file (announced through `BlockingWork`).
    @Test func everyBlockingCallOnTheLoopStopsADebugBuild() async throws {
        // (An exit test captures nothing: each makes what it needs, in a system directory
        // or in memory.)
        await #expect(processExitsWith: .failure) {
            LoopGuard.enterLoop()
            _ = Disk.exists(NSTemporaryDirectory())
        }
        await #expect(processExitsWith: .failure) {
            LoopGuard.enterLoop()
            _ = try? ContentID.of(file: "/etc/passwd")
        }
        await #expect(processExitsWith: .failure) {
            let store = try? LoopLagTests.tableOfRows(100)
            LoopGuard.enterLoop()
            _ = try? store?.query("SELECT x FROM t")
        }
        // A handful of rows is the loop's to read.
        await #expect(processExitsWith: .success) {
            let store = try? LoopLagTests.tableOfRows(100)
            LoopGuard.enterLoop()
            _ = try? store?.query("SELECT x FROM t LIMIT 10")
        }
        // Off the loop every one of them is just a call.
        let rows = try Self.tableOfRows(100).query("SELECT x FROM t")
        #expect(Disk.exists(NSTemporaryDirectory()) && rows.count == 100)
        #expect(try ContentID.of(file: "/etc/passwd").hasPrefix("sha256:"))
    }

    /// An in-memory table `t` of `count` rows.
    static func tableOfRows(_ count: Int) throws -> SQLiteDatabase {
        let store = try SQLiteDatabase(path: ":memory:")
        try store.execute("CREATE TABLE t(x)")
        try store.query("INSERT INTO t SELECT value FROM json_each(?)", [.text("[" + (0..<count).map(String.init).joined(separator: ",") + "]")])
        return store
    }

    /// A 512 MB upload is written and hashed on the I/O lane while clients keep asking for
    /// the workers: the loop answers within a generous bound throughout (the benchmark
    /// holds the tight goal: docs/benchmarks.md, "Loop lag"). Hashing the upload on the
    /// loop held it for about a second.
    @Test func aLargeUploadDoesNotHoldTheLoop() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let options = Coordinator.Options.scratch(in: dir)
        let lag = options.loopLag
        let coordinator = try CoordinatorThread(options)
        defer { coordinator.stop() }
        let endpoint = coordinator.endpoint
        let file = dir.appendingPathComponent("big.bin")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 512 << 20)   // sparse: read as zeros, written for real by the coordinator
        try handle.close()
        let contentID = try ContentID.of(file: file.path)

        let uploaded = DispatchSemaphore(value: 0)
        Thread {
            do { try FarmClient(endpoint: endpoint).upload(file, contentID: contentID) } catch { Issue.record("upload: \(error)") }
            uploaded.signal()
        }.start()
        let client = try FarmClient(endpoint: endpoint)
        var answers = 0
        while uploaded.wait(timeout: .now()) == .timedOut {
            _ = try client.workers()
            answers += 1
        }
        #expect(try client.hasMedia(contentID))
        let summary = lag.summary
        #expect(answers > 10 && summary.count > answers)
        #expect(summary.max < 0.25, "\(summary)")
        #expect(summary.p99 < 0.05, "\(summary)")
    }

    /// `--loop-priority realtime` (docs/operations.md, "Loop lag"): the loop thread takes the
    /// round-robin real-time policy where the process may (root or CAP_SYS_NICE), and says
    /// why not where it may not; the normal policy changes nothing. On a thread of its own,
    /// so that no test thread is left real-time.
    @Test func theRealtimeLoopPolicyIsTakenWhereAllowedAndRefusedWithAReasonElsewhere() {
        let result = Mutex<(normal: String?, realtime: String?, policy: Int32)>((nil, nil, -1))
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            let normal = LoopPriority.normal.apply()
            let realtime = LoopPriority.realtime.apply()
            var policy: Int32 = -1
            var parameters = sched_param()
            pthread_getschedparam(pthread_self(), &policy, &parameters)
            result.withLock { $0 = (normal, realtime, policy) }
        }.start()
        done.wait()
        let (normal, realtime, policy) = result.withLock { $0 }
        #expect(normal == nil)
        // Root may; another user without CAP_SYS_NICE may not (EPERM, said in words).
        let allowed = realtime == nil
        #expect(allowed ? policy == SCHED_RR : policy == SCHED_OTHER, "policy \(policy), refusal \(realtime ?? "none")")
        if geteuid() == 0 { #expect(allowed, "\(realtime ?? "")") }
        if !allowed { #expect(realtime?.isEmpty == false) }
    }
}
