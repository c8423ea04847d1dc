// The coordinator's loop lag under load (docs/benchmarks.md, "Loop lag"): all at once,
// a restart with 5,000 kept chunks to verify, 100 simulated workers delivering 2 MiB
// chunks, a client uploading 2 GB, and the housekeeping of 10,000 kept jobs with their
// results. The lag is the coordinator's own histogram (`reel_coordinator_loop_lag_seconds`),
// read in process from its start to the job's last chunk.
import Farm
import Foundation
import RenderEngine
import SessionKit
import Synchronization

func measureLoopLag(_ arguments: Arguments) throws {
    let dir = arguments.directory
    let state = dir.appendingPathComponent("state")
    let results = state.appendingPathComponent("results")
    try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)

    // 10,000 jobs that ended an hour ago, each with its (small) result: kept, so every
    // sweep reads them all.
    let keptJobs = 10_000
    var options = Coordinator.Options(endpoint: "tcp://127.0.0.1:*", stateDirectory: state)
    options.mediaRoots = [dir]
    let firstOptions = try onStore(options, arguments.store)
    do {
        let store = try JobStore(at: firstOptions.store)
        let ended = Date().timeIntervalSince1970 - 3600
        let result = Data(repeating: 1, count: 4096)
        try store.batch {
            for i in 0..<keptJobs {
                let id = String(format: "kept-%05d", i)
                try store.createJob(JobStore.JobRecord(id: id, state: .queued, priority: 0, created: ended - 60, finished: nil,
                                                       session: "{}", files: [:], paths: [:], settings: EncoderSettings(), totalFrames: 30),
                                    shards: [])
                try store.setJobState(id, .done, finished: ended)
                try result.write(to: results.appendingPathComponent(id + ".mp4"))
            }
        }
    }

    // A job of 7,200 shards (four one-hour segments at 1 fps, 1 s keyframes); a first
    // coordinator keeps 5,000 chunks of 256 KiB, then stops.
    let source = dir.appendingPathComponent("clip.mp4")
    var sample = SampleMedia()
    sample.duration = 3600
    sample.framesPerSecond = 1
    sample.width = 16
    sample.height = 16
    sample.audio = false
    sample.pattern = .frameIndex
    try sample.write(to: source.path)
    let sessionPath = dir.appendingPathComponent("session.json")
    let segments = (0..<4).map { _ in #"{"source": "clip.mp4"}"# }.joined(separator: ",")
    try Data(#"{"video": {"renderSize": [16, 16], "frameDuration": 1, "videoSegments": [\#(segments)]}}"#.utf8).write(to: sessionPath)
    let media = try shardChunkMedia(like: sample, in: dir)
    let kept = 5_000
    let first = try startCoordinator(firstOptions)
    let firstWorkers = SimulatedWorkers(endpoint: first.endpoint, count: arguments.workers, slots: arguments.slots,
                                        chunkBytes: 256 << 10, media: media, limit: kept)
    Thread { do { try firstWorkers.run() } catch { print("simulated workers: \(error)") } }.start()
    var client = try FarmClient(endpoint: first.endpoint)
    while try client.workers().count < arguments.workers { Thread.sleep(forTimeInterval: 0.1) }
    guard case .submitted(let job, _, _) = try client.submit(try LoadedSession.load(path: sessionPath.path),
                                                             settings: EncoderSettings(keyframeIntervalSeconds: 1, audio: false), priority: 0) else {
        print("submit refused")
        exit(1)
    }
    var status = try client.status(job)[0]
    while status.shards.done < kept { Thread.sleep(forTimeInterval: 0.2); status = try client.status(job)[0] }
    let total = status.shards.total
    firstWorkers.stop.raise()
    options.stop.raise()
    first.thread.waitUntilEnded()
    print("kept: \(status.shards.done) of \(total) shards done (256 KiB chunks), \(keptJobs) ended jobs with results")

    // The upload's bytes: 2 GB of a sparse file (the coordinator writes and hashes them all).
    let upload = dir.appendingPathComponent("upload.bin")
    let uploadBytes: UInt64 = 2_000_000_000
    FileManager.default.createFile(atPath: upload.path, contents: nil)
    let handle = try FileHandle(forWritingTo: upload)
    try handle.truncate(atOffset: uploadBytes)
    try handle.close()
    let uploadID = try ContentID.of(file: upload.path)

    // The restart, the deliveries, the upload and the sweeps, together: the workers are
    // there first, saying hello to the port the coordinator comes back on.
    options.stop = StopSignal()
    options.loopLag = LoopLag()
    options.loopPriority = arguments.loopPriority
    options.endpoint = first.endpoint
    let workers = SimulatedWorkers(endpoint: first.endpoint, count: arguments.workers, slots: arguments.slots, chunkBytes: 2 << 20,
                                   media: media)
    Thread { do { try workers.run() } catch { print("simulated workers: \(error)") } }.start()
    let second = try startCoordinator(try onStore(options, arguments.store))
    let uploaded = DispatchSemaphore(value: 0)
    let uploadStart = Date()
    let endpoint = second.endpoint
    Thread {
        runAsAnotherHost()
        do { try FarmClient(endpoint: endpoint).upload(upload, contentID: uploadID) } catch { print("upload: \(error)") }
        print(String(format: "upload of %.1f GB done in %.1f s", Double(uploadBytes) / 1e9, Date().timeIntervalSince(uploadStart)))
        uploaded.signal()
    }.start()
    // Clients that read what a dashboard reads, over and over: a page of 1,000 jobs and
    // the running job's 7,200 shards (as another host, like the workers).
    let polling = StopSignal()
    let polls = PollCounts()
    for _ in 0..<arguments.pollers {
        Thread {
            runAsAnotherHost()
            do {
                let poller = try FarmClient(endpoint: endpoint)
                while !polling.isRaised {
                    let page = try poller.statusReply(limit: 1000)
                    let shards = try poller.shards(job)
                    polls.add(jobs: page.jobs.count, shards: shards.count)
                }
            } catch {
                print("poller: \(error)")
            }
        }.start()
    }
    client = try FarmClient(endpoint: second.endpoint)
    status = try client.status(job)[0]
    let started = Date()
    while status.shards.done < total && !status.isFinal { Thread.sleep(forTimeInterval: 0.2); status = try client.status(job)[0] }
    let delivered = Date().timeIntervalSince(started)
    uploaded.wait()
    // At least one sweep after the upload: the housekeeping runs every 10 s.
    Thread.sleep(forTimeInterval: 10.5)
    let lag = options.loopLag.summary
    print(String(format: "restart: %.2f s to start (resume), %d chunks of 2 MiB delivered in %.1f s by %d workers",
                 second.startSeconds, workers.chunksSent, delivered, arguments.workers)
          + "; the job \(status.state.rawValue) with \(status.shards.done) of \(status.shards.total) shards done\(status.error.map { ": " + $0.message } ?? "")")
    print("loop lag: \(lag)")
    polling.raise()
    if arguments.pollers > 0 {
        print("\(arguments.pollers) pollers read \(polls.rounds) job-list pages (\(polls.jobs) jobs) and shard lists (\(polls.shards) shards)")
    }
    workers.stop.raise()
    options.stop.raise()
    second.thread.waitUntilEnded()
}

/// What the pollers read, counted across their threads.
final class PollCounts: Sendable {
    private let counts = Mutex((rounds: 0, jobs: 0, shards: 0))

    func add(jobs: Int, shards: Int) {
        counts.withLock { $0 = ($0.rounds + 1, $0.jobs + jobs, $0.shards + shards) }
    }

    var rounds: Int { counts.withLock { $0.rounds } }
    var jobs: Int { counts.withLock { $0.jobs } }
    var shards: Int { counts.withLock { $0.shards } }
}
