import ArgumentParser
import Farm
import Foundation

/// The embedded farm a local render runs on (docs/rendering.md): its workers and trace.
struct LocalFarmOptions: ParsableArguments {
    @Option(help: "Parallel local workers (default: the number of cores).")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: ArgumentHelp("Write the embedded farm's jobs and shard attempts as JSON lines to FILE (docs/operations.md, \"Tracing a render\").",
                               valueName: "file"))
    var trace: String?

    func validate() throws {
        guard workers >= 1, workers <= 256 else { throw ValidationError("--workers \(workers) is outside 1 … 256") }
    }

    var farm: EmbeddedFarm {
        var farm = EmbeddedFarm(executable: EmbeddedFarm.currentExecutable, workers: workers)
        farm.tracePath = trace
        return farm
    }
}
