import ArgumentParser
import Foundation
import RenderEngine
import SessionKit

/// `reel filters`: the catalogue as users and docs/filters.md see it.
struct FiltersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filters",
        abstract: "List the filter types: slider and actual ranges, defaults, formulas; or draw them all on one picture.")

    @Flag(help: "Print one JSON array on stdout.")
    var json = false

    @Flag(help: "Print the table of docs/filters.md.")
    var markdown = false

    @Flag(help: "Print the JSON Schema of a filter (docs/session.schema.json, $defs.filter).")
    var schema = false

    @Option(name: .customLong("contact-sheet"), help: ArgumentHelp("Draw every type at three intensities into a PNG.", valueName: "out.png"))
    var contactSheet: String?

    @Option(help: ArgumentHelp("The picture or video (first frame) for --contact-sheet. Default: a test picture.", valueName: "media"))
    var source: String?

    @OptionGroup var looks: LooksOptions

    func run() throws {
        if let contactSheet {
            do {
                try ContactSheet(looks: looks.directory.map(LooksDirectory.init)).render(source: source, to: contactSheet)
            } catch {
                printError("error: \(error)")
                throw Reported(code: ExitStatus.failure)
            }
            return
        }
        let rows = FilterRegistry.catalogue.map(Row.init)
        if schema {
            print(String(decoding: try FilterSchema.make(), as: UTF8.self))
        } else if json {
            try printJSON(rows)
        } else if markdown {
            print("| type | SDK class | category | slider (default) | actual (default) | per pixel |")
            print("| --- | --- | --- | --- | --- | --- |")
            for r in rows {
                print("| `\(r.type)` | \(r.className.map { "`\($0)`" } ?? "—") | \(r.category) | \(r.sliderText) | \(r.actualText) | \(r.formula) |")
            }
        } else {
            for r in rows {
                print("\(r.type.padding(toLength: 22, withPad: " ", startingAt: 0)) \(r.category.padding(toLength: 9, withPad: " ", startingAt: 0)) "
                    + "slider \(r.sliderText); actual \(r.actualText)")
            }
        }
    }

    struct Row: Encodable {
        var type: String
        var className: String?
        var category: String
        var normalizedRange: [Double]?
        var normalizedDefault: Double?
        var actualRange: [Double]?
        var actualDefault: Double?
        var mapping: String?
        var file: String?
        var distortsOutput: Bool
        var formula: String

        init(_ d: FilterDefinition) {
            type = d.type
            className = d.className
            category = d.category.rawValue
            if let s = d.slider {
                normalizedRange = [s.normalizedRange.lowerBound, s.normalizedRange.upperBound]
                normalizedDefault = s.normalizedDefault
                actualRange = [s.actualLow, s.actualHigh]
                actualDefault = s.actualDefault
                mapping = s.mapping.rawValue
            }
            switch d.input {
            case .none: file = nil
            case .fileField(let key, _): file = key
            case .look: file = "looks/\(d.type).png"
            }
            distortsOutput = d.distortsOutput
            formula = d.formula
        }

        var sliderText: String {
            guard let r = normalizedRange, let d = normalizedDefault else { return "none" }
            return "\(formatNumber(r[0])) … \(formatNumber(r[1])) (\(formatNumber(d)))"
        }

        var actualText: String {
            guard let r = actualRange, let d = actualDefault else { return "—" }
            return "\(formatNumber(r[0])) … \(formatNumber(r[1])) (\(formatNumber(d)))"
        }
    }
}

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

/// The JSON Schema of one filter, from the catalogue: the type is open (custom filters of
/// a looks directory), and each built-in type and its SDK class name gets its slider range
/// and the file it needs.
enum FilterSchema {
    static func make() throws -> Data {
        var rules: [[String: Any]] = []
        for d in FilterRegistry.catalogue {
            var then: [String: Any] = [:]
            if let slider = d.slider {
                then["properties"] = ["normalizedIntensity": ["minimum": slider.normalizedRange.lowerBound,
                                                              "maximum": slider.normalizedRange.upperBound]]
            }
            if case .fileField(let key, _) = d.input { then["required"] = [key] }
            guard !then.isEmpty else { continue }
            let names = [d.type] + (d.className.map { [$0] } ?? [])
            rules.append(["if": ["properties": ["type": ["enum": names]]], "then": then])
        }
        let schema: [String: Any] = [
            "type": "object",
            "properties": [
                "type": ["type": "string", "minLength": 1,
                         "description": "A type of docs/filters.md, its SDK class name, or a custom filter of the looks directory."],
                "normalizedIntensity": ["type": "number"],
                "displayName": ["type": "string"],
                "version": ["type": ["string", "integer"]],
                "file": ["type": "string", "minLength": 1],
                "image": ["type": "string", "minLength": 1],
            ],
            "required": ["type"],
            "allOf": rules,
        ]
        return try JSONSerialization.data(withJSONObject: schema, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}
