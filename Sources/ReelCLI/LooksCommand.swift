import ArgumentParser
import Foundation
import RenderEngine
import SessionKit

/// `reel looks`: what the looks directory holds, and whether each look is a stand-in.
struct LooksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "looks",
        abstract: "List the installed looks and custom filters, and which of the SDK's looks are stand-ins.")

    @Flag(help: "Print one JSON object on stdout.")
    var json = false

    @OptionGroup var looks: LooksOptions

    func run() throws {
        guard let url = looks.directory else {
            printError("error: no looks directory: give --looks DIR or set REEL_LOOKS")
            throw Reported(code: ExitStatus.invalidInput)
        }
        let entries: [LooksDirectory.Entry]
        do {
            entries = try LooksDirectory(url).entries()
        } catch {
            printError("error: cannot read the looks directory \(url.path): \(error)")
            throw Reported(code: ExitStatus.failure)
        }
        let installed = Set(entries.filter { $0.kind == .lookupImage && $0.problem == nil }.map(\.name))
        let missing = NamedLooks.ranges.map(\.0).filter { !installed.contains($0) }
        if json {
            struct Listing: Encodable { var directory: String; var looks: [LooksDirectory.Entry]; var missingSDKLooks: [String] }
            try printJSON(Listing(directory: url.path, looks: entries, missingSDKLooks: missing))
            return
        }
        print("looks in \(url.path):")
        for e in entries {
            var notes: [String] = []
            if e.sdkLook { notes.append(e.standIn ? "SDK look, ReelFarm's stand-in" : "SDK look, captured") }
            if let problem = e.problem { notes.append("unusable: \(problem)") }
            print("  \(e.name.padding(toLength: 14, withPad: " ", startingAt: 0)) \(e.kind.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)) "
                + "\(e.file)\(notes.isEmpty ? "" : "  (\(notes.joined(separator: "; ")))")")
        }
        if !missing.isEmpty { print("missing SDK looks: \(missing.joined(separator: ", "))") }
    }
}
