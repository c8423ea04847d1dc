import Foundation

/// The engine's pixel loops are compiled for x86-64-v3 unless the build said otherwise
/// (Package.swift, docs/rendering.md "Processors"); on an older processor they would stop
/// at the first vector instruction with SIGILL. `reel` checks before any of them runs.
/// This file is compiled for the baseline processor, like the rest of the command.
enum ProcessorCheck {
    #if ENGINE_NEEDS_X86_64_V3
    static let required = ["avx", "avx2", "bmi1", "bmi2", "fma", "f16c", "movbe", "popcnt", "sse4_2"]
    #else
    static let required: [String] = []
    #endif

    /// The features `required` that this processor lacks. `/proc/cpuinfo` is read only when
    /// the build requires any (none when unreadable: not Linux, or a sandbox; the kernel's
    /// SIGILL is then the answer).
    static func missing() -> [String] {
        guard !required.isEmpty else { return [] }
        return missing(cpuinfo: try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))
    }

    /// The features `required` that `cpuinfo` (the text of `/proc/cpuinfo`) does not list.
    static func missing(cpuinfo: String?) -> [String] {
        guard !required.isEmpty, let cpuinfo,
              let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return [] }
        let flags = Set(line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "\t" }).map(String.init))
        return required.filter { !flags.contains($0) }
    }

    /// Exits with status 1 and one line when this processor cannot run the engine.
    static func refuseUnsupportedProcessor() {
        let absent = missing()
        guard !absent.isEmpty else { return }
        printError("error: this reel was built for x86-64-v3 processors; this one lacks \(absent.joined(separator: ", ")) "
            + "(rebuild with REEL_TARGET_CPU=x86-64 make build)")
        exit(1)
    }
}
