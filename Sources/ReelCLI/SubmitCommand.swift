import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct SubmitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "submit",
        abstract: "Submit a session to a coordinator; prints the job id.")

    @OptionGroup var session: SessionOptions
    @OptionGroup var farm: CoordinatorOption

    @Option(help: "Higher runs first; equal priorities share the workers.")
    var priority: Int = 0

    @Flag(help: "Wait for the job, showing progress, and write -o when it is done.")
    var wait = false

    @Option(name: .shortAndLong, help: "Where to write the result (with --wait): a file, or with --segments a directory.")
    var output: String?

    @Flag(help: "Write one MP4 per segment (the SDK's export(segment:)); fetch them into a directory.")
    var segments = false

    @Flag(help: "Print {jobID, shards, reusedShards} as JSON instead of the job id alone.")
    var json = false

    @Option(name: .customLong("output-url"), help: ArgumentHelp(
        "A presigned PUT URL the coordinator sends the MP4 to when done; the job is done once it arrived.", valueName: "url"))
    var outputURL: String?

    @Option(name: .customLong("sidecar-url"), help: ArgumentHelp("A presigned PUT URL for the sidecar (with --output-url).",
                                                                 valueName: "url"))
    var sidecarURL: String?

    @OptionGroup var encoding: EncodingOptions
    @Option(name: .customLong("shard-keyframe-intervals"),
            help: "Keyframe intervals per shard, 1 … 32 (default: the farm's choice, docs/scale.md).")
    var shardKeyframeIntervals: Int64?
    @Option(help: "Render only on workers of this pool (reel worker --pool); the job waits while the pool has none.")
    var pool: String?

    var settings: EncoderSettings {
        var settings = encoding.settings
        settings.shardKeyframeIntervals = shardKeyframeIntervals
        return settings
    }

    func validate() throws {
        if output != nil && !wait { throw ValidationError("-o needs --wait (or use reel fetch JOB -o OUT)") }
        if let output {
            if segments { try OutputPlace.check(directory: output, option: "-o") } else { try OutputPlace.check(file: output, option: "-o") }
        }
        do { try settings.validate() }
        catch { throw ValidationError("\(error)") }
        if let pool, let problem = PoolName.problem(pool) { throw ValidationError("--pool: \(problem)") }
    }

    func run() throws {
        let loaded = try session.loadValid()
        let client = try farm.client()
        let result = try farmCall {
            try client.submit(loaded, settings: settings, priority: priority, layout: segments ? .segments : .whole,
                              outputURL: outputURL, sidecarURL: sidecarURL, pool: pool)
        }
        guard case .submitted(let jobID, let reused, let shards) = result else {
            if case .invalid(let problems) = result { for p in problems { printError("error: \(p)") } }
            throw Reported(code: ExitStatus.invalidInput)
        }
        if reused > 0 { printError("reused \(reused) of \(shards) shards from the coordinator's chunk cache") }
        if json {
            struct Submitted: Encodable { var jobID: String; var shards: Int; var reusedShards: Int }
            try printJSON(Submitted(jobID: jobID, shards: shards, reusedShards: reused))
        } else {
            print(jobID)
        }
        guard wait else { return }
        try followToDone(client, jobID, showProgress: true)
        if let output { try farmCall { try client.fetch(jobID, to: output) } }
    }
}
