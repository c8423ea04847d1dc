// The coordinator under load (docs/benchmarks.md): a real coordinator on loopback, many
// simulated workers in this process that "render" instantly (a fixed, valid LZ4 chunk),
// and one job of about 50,000 shards. Reports shards dispatched per second and the
// process's memory. The chunks are not real video, so the job ends failing assembly;
// what is measured ends when every shard is done.
//
//   swift run -c release coordinator-load [--workers 100] [--segments 28] [--slots 2]
//   … --minutes M: instead, an M-minute export at 30 fps (2 s keyframes), to show that the
//   coordinator's memory does not grow with the export's length.
//   … --egress: instead, workers that share no disk render a 3-clip session for real,
//   reading by ranges (RangeWorkers.swift): the coordinator's media egress against the
//   clips' size and the ranges the shards read, and the time to the first chunk.
//   [--clip-seconds S] (default 60).
//   … --lag: instead, the loop's lag while it restarts, workers deliver, a client uploads
//   and the housekeeping runs (LoopLagLoad.swift). [--loop-priority normal|realtime]
//   (realtime needs root or CAP_SYS_NICE). [--pollers N]: N more clients meanwhile, each
//   reading the job list's first 1,000 jobs and the job's shard details in turn.
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Arguments {
    var workers = 100
    var segments = 28
    var slots = 2
    var minutes: Int?
    var egress = false
    var lag = false
    var clipSeconds = 60
    var loopPriority = LoopPriority.normal
    var pollers = 0
    /// `--store URL`: the store on a PostgreSQL server (docs/benchmarks.md).
    var store: String?
    var directory = FileManager.default.temporaryDirectory.appendingPathComponent("reel-coordinator-load")

    init() {
        var args = CommandLine.arguments.dropFirst()
        while let flag = args.popFirst() {
            if flag == "--egress" || flag == "--lag" {
                if flag == "--egress" { egress = true } else { lag = true }
                continue
            }
            guard let value = args.popFirst() else { Self.usage() }
            switch flag {
            case "--workers": workers = Int(value) ?? workers
            case "--segments": segments = Int(value) ?? segments
            case "--slots": slots = Int(value) ?? slots
            case "--minutes": minutes = Int(value)
            case "--clip-seconds": clipSeconds = Int(value) ?? clipSeconds
            case "--dir": directory = URL(fileURLWithPath: value)
            case "--loop-priority": loopPriority = LoopPriority(rawValue: value) ?? loopPriority
            case "--pollers": pollers = Int(value) ?? pollers
            case "--store": store = value
            default: Self.usage()
            }
        }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(Data("usage: coordinator-load [--workers N] [--segments N] [--slots N] [--minutes M | --egress [--clip-seconds S] | --lag [--loop-priority P] [--pollers N]] [--store postgresql://…] [--dir DIR]\n".utf8))
        exit(2)
    }
}

/// Resident and peak memory of this process (kB).
func memory() -> (rss: Int, peak: Int) { (ProcessMemory.residentKB ?? 0, ProcessMemory.peakKB ?? 0) }

/// The bench's peers stand for other machines. Here they share the coordinator's cores, so
/// the thread that calls this runs at the lowest priority (nice 19: per thread on Linux;
/// the threads it starts after, such as a ZeroMQ context's I/O threads, inherit it) and
/// takes only the CPU the coordinator leaves (docs/benchmarks.md, "Loop lag").
func runAsAnotherHost() {
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
}

/// What every simulated chunk carries before its padding: a real chunk of two frames of
/// `sample`'s size (each a keyframe), so that the job's assembly reads it and the job runs
/// to its end under the whole load.
func shardChunkMedia(like sample: SampleMedia, in dir: URL) throws -> Data {
    var shard = sample
    shard.framesPerSecond = 1
    shard.duration = 2
    let path = dir.appendingPathComponent("shard.mp4")
    try shard.write(to: path.path)
    return try Data(contentsOf: path)
}

/// Workers that answer every shard at once with the same chunk: 4 KiB of one byte, or
/// `media` (a real chunk, `shardChunkMedia`) padded to `chunkBytes` with a `free` box of random bytes (LZ4
/// cannot shrink them, so the coordinator verifies and writes them whole, and the job's
/// assembly reads the chunk's packets and skips the box); they stop answering after `limit`
/// chunks.
final class SimulatedWorkers: @unchecked Sendable {   // used by its own thread only after start
    let endpoint: String
    let count: Int
    let slots: Int
    let chunkBytes: Int?
    let media: Data
    let limit: Int
    let stop = StopSignal()
    private(set) var chunksSent = 0

    init(endpoint: String, count: Int, slots: Int, chunkBytes: Int? = nil, media: Data = Data(), limit: Int = .max) {
        self.endpoint = endpoint
        self.count = count
        self.slots = slots
        self.chunkBytes = chunkBytes
        self.media = media
        self.limit = limit
    }

    /// `media` and a top-level `free` box (size, type, random payload) to `total` bytes.
    private func padded(to total: Int, using generator: inout SystemRandomNumberGenerator) -> Data {
        let box = max(8, total - media.count)
        var bytes = media
        withUnsafeBytes(of: UInt32(box).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: Array("free".utf8))
        bytes.append(contentsOf: (0..<(box - 8)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return bytes
    }

    func run() throws {
        runAsAnotherHost()
        let context = try ZMQContext()
        let sockets = try (0..<count).map { _ in try ZMQSocket(context, .dealer, sendTimeoutMillis: 5000) }
        var generator = SystemRandomNumberGenerator()
        let bytes = chunkBytes.map { padded(to: $0, using: &generator) } ?? Data(repeating: 7, count: 4096)
        let chunk = try LZ4Frame.compress(bytes)
        let payload = Data(chunk.bytes)
        let sha = Digest.sha256(bytes)
        for (i, socket) in sockets.enumerated() {
            try socket.connect(endpoint)
            let hello = Hello(workerID: "sim-\(i)", host: "load", slots: slots, capabilities: ["video", "audio"],
                              engineVersion: EngineVersion.engine)
            try socket.send(try WireMessage(.hello, hello).frames)
        }
        // Each worker beats every 0.5 s on its own phase, as independent workers do: in
        // step, 100 beats would land in one turn of the loop every half second.
        let beatPeriod = 0.5
        let started = Date()
        var nextBeat = (0..<count).map { beatPeriod * Double($0) / Double(count) }
        while !stop.isRaised {
            let untilBeat = (nextBeat.min() ?? beatPeriod) - Date().timeIntervalSince(started)
            let ready = try ZMQSocket.poll(sockets, timeoutMillis: Int(max(1, min(50, untilBeat * 1000))))
            for (socket, readable) in zip(sockets, ready) where readable {
                while let frames = try socket.receive() {
                    let message = try WireMessage.parse(frames)
                    guard message.type == .shard, chunksSent < limit else { continue }
                    let shard = try message.decode(ShardAssignment.self)
                    let done = ChunkReady(jobID: shard.jobID, shard: shard.shard, attempt: shard.attempt, sha256: sha,
                                          size: bytes.count, millis: 0)
                    try socket.send(try WireMessage(.chunk, done, payload: [payload]).frames)
                    chunksSent += 1
                }
            }
            let now = Date().timeIntervalSince(started)
            for (i, socket) in sockets.enumerated() where nextBeat[i] <= now {
                try socket.send(try WireMessage(.heartbeat, Heartbeat(busy: 0)).frames)
                nextBeat[i] += beatPeriod
            }
        }
        for socket in sockets { socket.close() }
    }
}

let arguments = Arguments()
let fm = FileManager.default
try? fm.removeItem(at: arguments.directory)
try fm.createDirectory(at: arguments.directory, withIntermediateDirectories: true)
let dir = arguments.directory
if arguments.egress {
    try measureEgress(arguments)
    exit(0)
}
if arguments.lag {
    try measureLoopLag(arguments)
    exit(0)
}

// Default: one hour of 1 fps video at 16x16; a session of N one-hour segments at 1 fps
// with a 1 s keyframe interval: shards of 2 frames, 1,800 per segment.
// --minutes M: one minute at 30 fps, M times: an M-minute export, 15 shards a minute.
let source = dir.appendingPathComponent("clip.mp4")
var sample = SampleMedia()
sample.duration = arguments.minutes == nil ? 3600 : 60
sample.framesPerSecond = arguments.minutes == nil ? 1 : 30
sample.width = 16
sample.height = 16
sample.audio = false
sample.pattern = .frameIndex
try sample.write(to: source.path)
let count = arguments.minutes ?? arguments.segments
// Each segment its own brightness, so no two shards are twins (docs/rendering.md, "Twins")
// and every shard is dispatched and answered.
let segments = (0..<count).map { index in
    #"{"source": "clip.mp4", "filters": [{"type": "brightness", "normalizedIntensity": \#(0.5 + Double(index) / 1000)}]}"#
}.joined(separator: ",")
let sessionPath = dir.appendingPathComponent("session.json")
let frameDuration = arguments.minutes == nil ? #", "frameDuration": 1"# : ""
try Data(#"{"video": {"renderSize": [16, 16]\#(frameDuration), "videoSegments": [\#(segments)]}}"#.utf8).write(to: sessionPath)
let keyframeInterval = arguments.minutes == nil ? 1.0 : 2.0

var options = Coordinator.Options(endpoint: "tcp://127.0.0.1:*", stateDirectory: dir.appendingPathComponent("state"))
options.mediaRoots = [dir]
options.jobLimits.shards = 100_000  // the default job is 50,400 shards, past the default limit
let coordinatorOptions = try onStore(options, arguments.store)
let endpoint = try startCoordinator(coordinatorOptions).endpoint

let workers = SimulatedWorkers(endpoint: endpoint, count: arguments.workers, slots: arguments.slots, chunkBytes: 4096,
                               media: try shardChunkMedia(like: sample, in: dir))
let workerThread = Thread { do { try workers.run() } catch { print("simulated workers: \(error)") } }
workerThread.start()

let client = try FarmClient(endpoint: endpoint)
let deadline = Date().addingTimeInterval(30)
while try client.workers().count < arguments.workers, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
let before = memory()
let loaded = try LoadedSession.load(path: sessionPath.path)
let submitStart = Date()
// No sound: the simulated workers answer every shard with the same video chunk.
let settings = EncoderSettings(crf: 20, preset: "veryfast", keyframeIntervalSeconds: keyframeInterval, audio: false)
let answer = try client.submit(loaded, settings: settings, priority: 0)
guard case .submitted(let job, _, _) = answer else {
    print("submit refused: \(answer)")
    exit(1)
}
let submitted = Date()
var status = try client.status(job)[0]
let total = status.shards.total
var peakDuringRun = before.rss
while status.shards.done < total && !status.isFinal {
    Thread.sleep(forTimeInterval: 0.5)
    status = try client.status(job)[0]
    peakDuringRun = max(peakDuringRun, memory().rss)
}
let finished = Date()
let after = memory()
let seconds = finished.timeIntervalSince(submitted)
print("""
workers \(arguments.workers) x \(arguments.slots) slots, job of \(total) shards (\(status.totalFrames) frames)
submit (plan + store) \(String(format: "%.2f", submitted.timeIntervalSince(submitStart))) s
all shards done in \(String(format: "%.2f", seconds)) s: \(String(format: "%.0f", Double(status.shards.done) / seconds)) shards/s (\(workers.chunksSent) chunks sent, state \(status.state), \(status.shards)\(status.error.map { ": " + $0.message } ?? ""))
memory (whole process, kB): before submit \(before.rss), highest during the run \(peakDuringRun), after \(after.rss), peak \(after.peak)
""")
workers.stop.raise()
coordinatorOptions.stop.raise()
Thread.sleep(forTimeInterval: 0.5)
exit(0)
