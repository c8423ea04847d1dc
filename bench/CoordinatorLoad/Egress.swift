import Farm
import Foundation
import RenderEngine
import SessionKit

/// `--egress`: three clips of incompressible video (made with ffmpeg), one segment each,
/// rendered at 160×90 by `--workers` range-reading workers with one slot each; 1 s
/// keyframes give 2 s shards. Prints what the coordinator sent against the clips' size
/// and against the ranges the shards' demuxers read.
func measureEgress(_ arguments: Arguments) throws {
    let dir = arguments.directory
    var mediaBytes: Int64 = 0
    for (seed, name) in ["a", "b", "c"].enumerated() {
        let clip = dir.appendingPathComponent("\(name).mp4").path
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        ffmpeg.arguments = ["ffmpeg", "-v", "error", "-f", "lavfi",
                            "-i", "testsrc2=size=480x270:rate=30:duration=\(arguments.clipSeconds)",
                            "-vf", "noise=alls=60:allf=t:all_seed=\(seed + 1)", "-c:v", "libx264", "-preset", "ultrafast",
                            "-g", "30", "-pix_fmt", "yuv420p", clip]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        guard ffmpeg.terminationStatus == 0 else { throw EngineError("ffmpeg could not make \(clip)") }
        mediaBytes += (try FileManager.default.attributesOfItem(atPath: clip)[.size] as? NSNumber)?.int64Value ?? 0
    }
    let sessionPath = dir.appendingPathComponent("session.json")
    try Data(#"{"video": {"renderSize": [160, 90], "videoSegments": [{"source": "a.mp4"}, {"source": "b.mp4"}, {"source": "c.mp4"}]}}"#.utf8)
        .write(to: sessionPath)

    let options = Coordinator.Options(endpoint: "tcp://127.0.0.1:*", stateDirectory: dir.appendingPathComponent("state"))
    let endpoint = try startCoordinator(options).endpoint

    let workers = RangeWorkers(endpoint: endpoint, count: arguments.workers, cacheRoot: dir.appendingPathComponent("workers"))
    Thread { do { try workers.run() } catch { print("range workers: \(error)") } }.start()
    let client = try FarmClient(endpoint: endpoint)
    let deadline = Date().addingTimeInterval(30)
    while try client.workers().count < arguments.workers, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }

    let loaded = try LoadedSession.load(path: sessionPath.path)
    let submitted = Date()
    // The clips are uploaded once (the workers cannot read the client's paths).
    guard case .submitted(let job, _, _) = try client.submit(loaded, settings: EncoderSettings(keyframeIntervalSeconds: 1), priority: 0) else {
        throw EngineError("submit refused")
    }
    var status = try client.status(job)[0]
    var lastReport = Date()
    while !status.isFinal {
        Thread.sleep(forTimeInterval: 0.2)
        status = try client.status(job)[0]
        if Date().timeIntervalSince(lastReport) > 10 {
            let stats = workers.snapshot
            FileHandle.standardOutput.write(Data("… \(Int(Date().timeIntervalSince(submitted))) s: shards \(status.shards), attempts \(stats.attempts), chunks \(stats.chunks), failures \(stats.failures.count)\n".utf8))
            lastReport = Date()
        }
    }
    let seconds = Date().timeIntervalSince(submitted)
    let stats = workers.snapshot
    let sent = status.mediaBytesSent ?? 0
    let read = Int64(stats.blocksRead) * Int64(RangeFetcher.blockSize)
    let mb = { (bytes: Int64) in String(format: "%.1f MB", Double(bytes) / 1e6) }
    print("""
    egress: \(arguments.workers) workers x 1 slot, 3 clips of \(arguments.clipSeconds) s (\(mb(mediaBytes))), job \(job) \(status.state)\(status.error.map { ": " + $0.message } ?? "")
    shards \(status.shards.total), attempts \(stats.attempts) (\(stats.cancelled) cancelled: backups that lost), rejoins \(stats.rejoined), workers used \(status.workers.count)
    coordinator sent \(mb(sent)) = \(String(format: "%.2f", Double(sent) / Double(mediaBytes))) x the clips, \(String(format: "%.2f", Double(sent) / Double(max(read, 1)))) x the blocks the attempts read (\(mb(read)))
    first chunk after \(String(format: "%.2f", stats.firstChunk.map { $0.timeIntervalSince(submitted) } ?? -1)) s, job done after \(String(format: "%.2f", seconds)) s
    """)
    for failure in stats.failures.prefix(10) { print("failure: \(failure)") }
    workers.stop.raise()
    options.stop.raise()
    Thread.sleep(forTimeInterval: 0.5)
}
