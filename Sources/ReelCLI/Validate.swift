import ArgumentParser
import RenderEngine
import SessionKit

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a session and its media; report every problem with its JSON path.",
        discussion: "Exit status 0 when valid (warnings on stderr), 2 when invalid.")

    @OptionGroup var options: SessionOptions

    @Flag(help: "Print a JSON report on stdout instead of lines on stderr.")
    var json = false

    func run() throws {
        let loaded = try options.load()
        let report = loaded.report
        if json {
            try printJSON(Report(valid: report.isValid, problems: report.problems, warnings: report.warnings))
        } else {
            report.printLines(file: options.session)
        }
        if !report.isValid { throw Reported(code: ExitStatus.invalidInput) }
    }

    struct Report: Encodable {
        var valid: Bool
        var problems: [ValidationReport.Issue]
        var warnings: [ValidationReport.Issue]
    }
}
