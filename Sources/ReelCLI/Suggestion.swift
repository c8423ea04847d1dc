import ArgumentParser
import Foundation
import SessionKit

/// "did you mean …?" for a mistyped subcommand or option, from the names `reel` knows.
enum Suggestion {
    /// The hint to add to a usage error's message, if a known name is near what was typed.
    static func forUsageError(_ message: String, arguments: [String] = CommandLine.arguments) -> String? {
        let typed = Array(arguments.dropFirst())
        let commands = Reel.configuration.subcommands.map { $0._commandName }
        guard let first = typed.first, !first.hasPrefix("-") else { return nil }
        guard let command = Reel.configuration.subcommands.first(where: { $0._commandName == first }) else {
            return NearestName.suggestion(for: first, among: commands).map { " (did you mean '\($0)'? the commands: reel --help)" }
        }
        // An unknown option of a known command: the nearest of that command's options.
        guard let unknown = quoted(in: message), unknown.hasPrefix("-") else { return nil }
        let help = Reel.helpMessage(for: command)
        let options = Set(help.split(whereSeparator: { !"-abcdefghijklmnopqrstuvwxyz0123456789".contains($0) })
            .map(String.init).filter { $0.hasPrefix("--") && $0.count > 2 })
        return NearestName.suggestion(for: unknown, among: Array(options)).map { " (did you mean '\($0)'?)" }
    }

    /// The first 'quoted' word of a message.
    private static func quoted(in message: String) -> String? {
        let parts = message.split(separator: "'", omittingEmptySubsequences: false)
        return parts.count >= 3 ? String(parts[1]) : nil
    }
}
