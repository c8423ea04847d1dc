import ArgumentParser
import Farm
import Foundation
import RenderEngine

struct Reel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reel",
        abstract: "ReelFarm: render video-editing sessions on a farm of machines.",
        version: "reel \(EngineVersion.engine) (\(EngineVersion.libraries), libzmq \(TransportLibraries.zeroMQ), lz4 \(TransportLibraries.lz4))",
        subcommands: [Render.self, BatchCommand.self, CoordinatorCommand.self, WorkerCommand.self, SubmitCommand.self, Status.self, Watch.self,
                      Cancel.self, Priority.self, Fetch.self, Workers.self, Validate.self, Inspect.self, Sample.self, Keygen.self,
                      Thumbnail.self, Thumbnails.self, FrameCommand.self, FiltersCommand.self, LooksCommand.self]
    )
}

/// README.md, "Usage": 0 success, 2 invalid input, 1 any other failure; one clear line on stderr.
enum ExitStatus {
    static let invalidInput = ExitCode(2)
    static let failure = ExitCode(1)
}

/// An error that has already been reported and only needs its exit code.
struct Reported: Error {
    let code: ExitCode
}

/// One line on stderr in the one format every command uses: `reel: error: …` or
/// `reel: warning: …` (`line` starts with its level).
func printError(_ line: String) {
    FileHandle.standardError.write(Data(("reel: " + line + "\n").utf8))
}

@main
enum Main {
    static func main() async {
        ProcessorCheck.refuseUnsupportedProcessor()
        HeapPolicy.keepFreedPictures()
        do {
            var command = try Reel.parseAsRoot()
            if var service = command as? any AsyncParsableCommand {
                try await service.run()
            } else {
                try command.run()
            }
        } catch let reported as Reported {
            Foundation.exit(reported.code.rawValue)
        } catch {
            let code = Reel.exitCode(for: error)
            if code == .success {
                let message = Reel.fullMessage(for: error)
                if !message.isEmpty { print(message) }
                Foundation.exit(0)
            }
            // Usage errors are invalid input too: one line (no usage text), exit 2, not 64.
            let message = Reel.message(for: error) + (Suggestion.forUsageError(Reel.message(for: error)) ?? "")
            if !message.isEmpty { printError("error: " + message) }
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
