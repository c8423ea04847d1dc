import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "batch",
        abstract: "Render one session for many sets of media: one MP4 per line of a variants file.",
        discussion: "VARIANTS is JSON Lines, one {\"name\": NAME, \"replace\": {OLD: NEW, …}} a line; each variant is the "
            + "session with those sources replaced as --replace does (docs/session-format.md, \"Templates\") and is written "
            + "to DIR/NAME.mp4 with its sidecar. Shards no variant changes (an intro, an outro) render once. Every variant is "
            + "checked before anything renders. Runs on an embedded farm, or on a coordinator with --coordinator. "
            + "Exit status: 0 every variant done, 2 invalid input (nothing rendered), 1 a variant failed (the others are written).")

    @OptionGroup var options: SessionOptions

    @Argument(help: ArgumentHelp("The variants: JSON Lines.", valueName: "variants"))
    var variantsArgument: String?

    /// The variants file: the second argument, or the first with --from.
    var variants: String { variantsArgument ?? "" }

    @Option(name: .customLong("out-dir"), help: ArgumentHelp("Where NAME.mp4 and NAME.reel.json go.", valueName: "DIR"))
    var outDirectory: String

    @OptionGroup var local: LocalFarmOptions

    @Option(help: "Render on this coordinator instead of an embedded farm.")
    var coordinator: String?

    @OptionGroup var encoding: EncodingOptions

    @Option(help: "Higher runs first on a shared coordinator.")
    var priority: Int = 0

    @Flag(help: "Print a JSON summary on stdout when done.")
    var json = false

    mutating func validate() throws {
        if variantsArgument == nil, options.sidecar != nil {
            (variantsArgument, options.document) = (options.document, nil)
        }
        guard variantsArgument != nil else { throw ValidationError("give the variants file (JSON Lines)") }
        try OutputPlace.check(directory: outDirectory, option: "--out-dir")
    }

    func run() throws {
        let (template, variants) = try loadVariants()
        do {
            try FileManager.default.createDirectory(atPath: outDirectory, withIntermediateDirectories: true)
        } catch {
            printError("error: --out-dir \(outDirectory): \((error as NSError).localizedDescription)")
            throw Reported(code: ExitStatus.failure)
        }
        let begin = Date()
        let outcome: (status: BatchStatus, names: [String: String])
        if let coordinator {
            var farm = CoordinatorOption()
            farm.coordinator = [coordinator]
            outcome = try render(template, variants, on: try farm.client(), fetchClient: farm.client)
        } else {
            let media = Array(template.files.values) + variants.flatMap { $0.loaded.files.values }
            outcome = try farmCall {
                return try local.farm.run(media: media, origins: template.originClient) { client in
                    try render(template, variants, on: client) { try FarmClient(endpoint: client.endpoint) }
                }
            }
        }
        if json {
            try printJSON(Summary(outcome.status, names: outcome.names, directory: outDirectory, seconds: Date().timeIntervalSince(begin)))
        }
        guard outcome.status.state == .done else { throw Reported(code: ExitStatus.failure) }
    }

    /// The template as it is (its media are read only where there) and every variant
    /// loaded with its replacements; any problem is reported, all of them, before anything
    /// renders (exit 2).
    private func loadVariants() throws -> (LoadedSession, [(variant: BatchVariant, loaded: LoadedSession)]) {
        let text: String
        do {
            text = try String(contentsOfFile: variants, encoding: .utf8)
        } catch {
            printError("error: \(variants): cannot read: \((error as NSError).localizedDescription)")
            throw Reported(code: ExitStatus.invalidInput)
        }
        let parsed: [(line: Int, variant: BatchVariant)]
        do {
            parsed = try VariantsFile.parse(text)
        } catch {
            printError("error: \(variants): \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        }
        try options.checkOneSource()
        let common = try options.replacements()
        let template: LoadedSession
        do {
            template = try options.load(replacing: [:])
        } catch {
            printError("\(options.session): \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        }
        var loaded: [(variant: BatchVariant, loaded: LoadedSession)] = []
        var failed = false
        for (line, variant) in parsed {
            var merged = common
            merged.merge(variant.replace) { $1 }
            let place = "\(variants) line \(line) (\(variant.name))"
            do {
                let session = try options.load(replacing: merged)
                if session.report.isValid {
                    loaded.append((BatchVariant(name: variant.name, replace: merged), session))
                } else {
                    for problem in session.report.problems { printError("error: \(place): \(problem)") }
                    failed = true
                }
            } catch {
                printError("error: \(place): \(error)")
                failed = true
            }
        }
        guard !failed else { throw Reported(code: ExitStatus.invalidInput) }
        return (template, loaded)
    }

    /// Submits the batch, follows it, and writes each variant's result as it is done.
    private func render(_ template: LoadedSession, _ variants: [(variant: BatchVariant, loaded: LoadedSession)],
                        on client: FarmClient, fetchClient: () throws -> FarmClient) throws -> (status: BatchStatus, names: [String: String]) {
        let batchID: String
        var names: [String: String] = [:]
        switch try client.submitBatch(template: template, variants: variants, settings: encoding.settings, priority: priority) {
        case .submitted(let id, let jobs, let reused, let shards):
            batchID = id
            // Files are named by the variants sent, never by what a coordinator says.
            guard jobs.map(\.name) == variants.map(\.variant.name), Set(jobs.map(\.jobID)).count == jobs.count else {
                throw FarmError(.malformed, "the coordinator answered the batch with other variants than were sent")
            }
            names = Dictionary(uniqueKeysWithValues: jobs.map { ($0.jobID, $0.name) })
            if reused > 0 { printError("reused \(reused) of \(shards) shards from the coordinator's chunk cache") }
        case .invalid(let problems):
            for problem in problems { printError("error: \(problem)") }
            throw Reported(code: ExitStatus.invalidInput)
        }
        // Results are fetched on a second connection while this one follows the batch.
        let fetcher = try fetchClient()
        let printer = ProgressPrinter()
        var reported: Set<String> = []
        let final = try client.watchBatch(batchID) { status in
            printer.update(status)
            for job in status.variants where job.isFinal && !reported.contains(job.jobID) {
                guard let name = names[job.jobID] else { continue }
                reported.insert(job.jobID)
                if job.state == .done {
                    try fetcher.fetch(job.jobID, to: Self.output(of: name, in: outDirectory))
                } else {
                    printer.breakLine()
                    printError("error: variant \(name): \(job.state.rawValue): \(job.error?.message ?? "no detail")")
                }
            }
        }
        printer.finish(succeeded: final.variants.allSatisfy { $0.state == .done })
        printError("batch \(batchID): \(final.variants.filter { $0.state == .done }.count) of \(final.variants.count) "
            + "variants done, \(final.reusedShards) of \(final.shards) shards reused")
        return (status: final, names: names)
    }

    static func output(of variant: String, in directory: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent(variant + ".mp4").path
    }

    struct Summary: Encodable {
        struct Variant: Encodable {
            var name: String, jobID: String, state: JobPhase, frames: Int64
            var output: String?, error: String?
        }
        var batchID: String
        var state: BatchPhase
        var variants: [Variant]
        var shards: Int
        var reusedShards: Int
        var seconds: Double

        init(_ status: BatchStatus, names: [String: String], directory: String, seconds: Double) {
            batchID = status.batchID
            state = status.state
            variants = status.variants.map { job in
                let name = names[job.jobID] ?? job.jobID
                return Variant(name: name, jobID: job.jobID, state: job.state, frames: job.totalFrames,
                               output: job.state == .done ? BatchCommand.output(of: name, in: directory) : nil, error: job.error?.message)
            }
            shards = status.shards
            reusedShards = status.reusedShards
            self.seconds = seconds
        }
    }
}
