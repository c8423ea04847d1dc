import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a session to an MP4 (or an image session to a JPEG/PNG) on this machine.",
        discussion: "Writes OUT and, for video, the adjustment sidecar OUT.reel.json; with --segments DIR, "
            + "DIR/segment-NNN.mp4 and its sidecar for each segment (NNN as in video.videoSegments[NNN]). "
            + "Exit status: 0 done, 2 invalid input, 1 render failure (nothing is left at OUT).")

    @OptionGroup var options: SessionOptions

    @Option(name: .shortAndLong, help: "Output file.")
    var output: String?

    @Option(name: .customLong("segments"), help: ArgumentHelp(
        "Write one MP4 per segment into this directory instead of one file (the SDK's export(segment:)).",
        valueName: "DIR"))
    var segmentsDirectory: String?

    @OptionGroup var local: LocalFarmOptions
    var workers: Int { local.workers }

    @OptionGroup var encoding: EncodingOptions

    @Option(help: "JPEG quality for image sessions, 0 … 1.")
    var quality: Double = 0.95

    @Flag(help: "Print a JSON summary on stdout when done.")
    var json = false


    @Flag(name: .customLong("in-process"), help: "Render on threads of this process instead of the embedded farm.")
    var inProcess = false

    /// GOPs per shard with --in-process; huge = one chunk per segment (bench/run's unchunked reference).
    @Option(name: .customLong("shard-gops"), help: .hidden)
    var shardGOPs: Int64 = 2

    func validate() throws {
        guard (output == nil) != (segmentsDirectory == nil) else {
            throw ValidationError("give either -o OUT or --segments DIR")
        }
        guard quality > 0, quality <= 1 else { throw ValidationError("--quality \(quality) is outside 0 … 1") }
        // Checked before any work: a render must not end in a folder that is not there.
        if let output { try OutputPlace.check(file: output, option: "-o") }
        if let segmentsDirectory { try OutputPlace.check(directory: segmentsDirectory, option: "--segments") }
    }

    var settings: EncoderSettings { encoding.settings }

    /// The file, or the directory of per-segment files.
    var destination: String { output ?? segmentsDirectory ?? "" }
    var layout: Plan.Layout { segmentsDirectory == nil ? .whole : .segments }

    func run() throws {
        // The embedded worker's hello carries it; it is made while the session loads.
        if !inProcess { EncoderFingerprint.computeInBackground() }
        let loaded = try options.loadValid()
        if loaded.session.image != nil {
            guard let output else {
                printError("error: an image session renders to one file: -o OUT.jpg")
                throw Reported(code: ExitStatus.invalidInput)
            }
            do {
                try ImageRender(loaded: loaded, quality: quality).run(to: output)
            } catch {
                printError("error: \(error)")
                throw Reported(code: ExitStatus.failure)
            }
            return
        }
        let printer = ProgressPrinter()
        if !inProcess {
            // This process holds the farm's coordinator and its first worker (one slot): three
            // heaps for them, not glibc's 8 per core (docs/rendering.md, "Memory for pictures").
            HeapPolicy.shareHeaps(3)
            do {
                let (status, seconds, startup) = try local.farm.render(loaded, settings: settings, layout: layout, to: destination) {
                    printer.update($0, elapsed: $1)
                }
                printer.finish(elapsed: seconds)
                if json {
                    try printJSON(Summary(output: destination, sidecar: layout == .whole ? Sidecar.path(for: destination) : destination, frames: status.totalFrames,
                                          shards: status.shards.total, seconds: seconds, workers: workers,
                                          shardsPerWorker: status.workers, reusedShards: status.reusedShards,
                                          sourceFramesProcessed: nil, phaseSeconds: nil,
                                          assemblySeconds: status.assemblySeconds, workerPeakRSSKB: status.workerPeakRSSKB,
                                          startup: startup))
                }
            } catch let failure as EmbeddedFarm.Failure {
                printer.finish(succeeded: false)
                for line in failure.description.split(separator: "\n") { printError("error: \(line)") }
                throw Reported(code: failure.invalid ? ExitStatus.invalidInput : ExitStatus.failure)
            } catch {
                printer.finish(succeeded: false)
                printError("error: \(error)")
                throw Reported(code: ExitStatus.failure)
            }
            return
        }
        do {
            var render = LocalRender(loaded: loaded, settings: settings, workers: workers)
            render.shardKeyframeIntervals = max(1, shardGOPs)
            render.layout = layout
            let result = try render.run(to: destination) { printer.update($0) }
            printer.finish(elapsed: result.seconds)
            if json {
                try printJSON(Summary(output: destination, sidecar: result.sidecarPath, frames: result.frames, shards: result.shards,
                                      seconds: result.seconds, workers: workers, shardsPerWorker: nil, reusedShards: nil,
                                      sourceFramesProcessed: result.sourceFramesProcessed,
                                      phaseSeconds: Summary.Phases(result.phases), assemblySeconds: result.assemblySeconds,
                                      workerPeakRSSKB: nil))
            }
        } catch {
            printer.finish(succeeded: false)
            printError("error: \(error)")
            throw Reported(code: ExitStatus.failure)
        }
    }

    struct Summary: Encodable {
        var output: String
        var sidecar: String
        var frames: Int64
        var shards: Int
        var seconds: Double
        var workers: Int
        /// Shards each worker process rendered, and those that took a chunk rendered
        /// before (a twin's, or the chunk cache's) (farm path).
        var shardsPerWorker: [String: Int]?
        var reusedShards: Int?
        /// Source frames decoded (in-process path, which counts them).
        var sourceFramesProcessed: Int?
        /// Seconds the video shards spent by phase, summed over threads (in-process path).
        var phaseSeconds: Phases?
        /// Seconds spent joining the chunks and muxing.
        var assemblySeconds: Double?
        /// Highest resident memory of a worker process (farm path), kB.
        var workerPeakRSSKB: Int?
        /// When each step was reached, in seconds since the process started (farm path).
        var startup: EmbeddedFarm.Startup? = nil

        struct Phases: Encodable {
            var decode: Double, picture: Double, encode: Double

            init(_ s: VideoShardRenderer.Statistics) {
                (decode, picture, encode) = (s.decodeSeconds, s.processSeconds, s.encodeSeconds)
            }
        }
    }
}
