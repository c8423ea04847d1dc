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
