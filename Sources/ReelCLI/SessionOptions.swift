import ArgumentParser
import Foundation
import RenderEngine
import SessionKit

/// The session file and where its media may live, shared by the commands that read one.
struct SessionOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The session document (JSON); or --from SIDECAR.", valueName: "session"))
    var document: String?

    @Option(name: .customLong("from"), help: ArgumentHelp(
        "Read the session a render's sidecar recorded (OUT.reel.json) instead of a session file: the saved edit, usually with --replace.",
        valueName: "sidecar"))
    var sidecar: String?

    /// The file the session is read from.
    var session: String { sidecar ?? document ?? "" }

    /// Both given is refused when loading: a command with more arguments (`reel batch`)
    /// takes its first from `document` when the session comes from a sidecar.
    func validate() throws {
        guard document != nil || sidecar != nil else { throw ValidationError("give a session file, or --from SIDECAR") }
    }

    @Option(name: .customLong("media-root"), help: ArgumentHelp(
        "A directory media may be read from (repeatable). Default: the session file's directory.",
        valueName: "dir"))
    var mediaRoots: [String] = []

    @OptionGroup var looks: LooksOptions

    @OptionGroup var urls: URLOptions

    @Option(name: .customLong("replace"), help: ArgumentHelp(
        "Render the session's source OLD from NEW instead, its crop, transform and trims carried over (repeatable; docs/session-format.md, \"Templates\").",
        valueName: "OLD=NEW"))
    var replace: [String] = []

    /// `--replace OLD=NEW` as a map; a malformed or repeated one is an error (exit 2).
    func replacements() throws -> [String: String] {
        var map: [String: String] = [:]
        for pair in replace {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex, pair.index(after: equals) != pair.endIndex else {
                printError("error: --replace '\(pair)': use OLD=NEW, OLD a source of the session")
                throw Reported(code: ExitStatus.invalidInput)
            }
            let old = String(pair[..<equals]), new = String(pair[pair.index(after: equals)...])
            guard map.updateValue(new, forKey: old) == nil else {
                printError("error: --replace: '\(old)' is replaced twice")
                throw Reported(code: ExitStatus.invalidInput)
            }
        }
        return map
    }

    /// Refuses a session file and `--from` together (exit 2).
    func checkOneSource() throws {
        guard let document, let sidecar else { return }
        printError("error: give a session file or --from SIDECAR, not both ('\(document)' and '\(sidecar)')")
        throw Reported(code: ExitStatus.invalidInput)
    }

    /// The session with `replacements` (not `--replace`); throws `SessionDocumentError`.
    func load(replacing replacements: [String: String]) throws -> LoadedSession {
        try LoadedSession.load(path: session, mediaRoots: mediaRoots, looks: looks.directory, strictLooks: looks.strict,
                               urls: urls.client, replacements: replacements, sidecar: sidecar != nil)
    }

    /// Loads the session; an unreadable document is reported here (exit 2).
    func load() throws -> LoadedSession {
        try checkOneSource()
        let replacements = try replacements()
        do {
            return try load(replacing: replacements)
        } catch let error as SessionDocumentError {
            printError("\(session): \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        }
    }
}

extension SessionOptions {
    /// Loads a session that must be valid: problems are reported (exit 2), warnings printed.
    func loadValid() throws -> LoadedSession {
        let loaded = try load()
        guard loaded.report.isValid else {
            loaded.report.printLines(file: session)
            throw Reported(code: ExitStatus.invalidInput)
        }
        for warning in loaded.report.warnings { printError("warning: \(warning)") }
        return loaded
    }
}

extension ValidationReport {
    /// Warnings always, problems when there are any; true when the session is valid.
    func printLines(file: String) {
        for warning in warnings { printError("warning: \(warning)") }
        for problem in problems { printError("error: \(problem)") }
    }
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Where named looks and custom filters are read (docs/filters.md, "Named looks").
struct LooksOptions: ParsableArguments {
    @Option(name: .customLong("looks"), help: ArgumentHelp(
        "The looks directory: NAME.png lookup images, NAME.json custom filters. Default: the shipped looks/.",
        valueName: "dir"))
    var path: String?

    @Flag(name: .customLong("strict-looks"), help: "Refuse ReelFarm's stand-in images for the SDK's named looks.")
    var strict = false

    var directory: URL? { path.map { URL(fileURLWithPath: $0) } ?? LooksDirectory.shipped }
}

extension EncoderSettings.VideoCodec: ExpressibleByArgument {}
