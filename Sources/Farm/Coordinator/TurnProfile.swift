import Foundation

/// Where one turn of the coordinator's loop spent its time, by phase and by message type
/// (docs/operations.md, "Loop lag"): a turn longer than `slowSeconds` is logged with its
/// largest parts, so an operator (and the lag bench) can name what held the loop.
/// A pure value; the loop reads the clock and passes it in.
struct TurnProfile {
    enum Phase: String, CaseIterable {
        /// `BEGIN IMMEDIATE`: the store's write lock.
        case begin = "BEGIN"
        case pending = "writes kept from a failed commit"
        case messages
        case lane = "I/O lane completions"
        case assemblies
        case submissions
        case batches = "jobs being created"
        case disk
        case sweep
        case tick = "scheduler tick"
        case stills
        case gauges
        case commit
    }

    static let slowSeconds = 0.02

    private(set) var started: Double
    private var last: Double
    private var phases: [Phase: Double] = [:]
    /// Seconds and count per part of a phase: a message's type, a lane completion's kind.
    private var details: [Phase: [String: (seconds: Double, count: Int)]] = [:]

    init(at now: Double) {
        started = now
        last = now
    }

    /// The time since the last lap goes to `phase`.
    mutating func lap(_ phase: Phase, at now: Double) {
        phases[phase, default: 0] += now - last
        last = now
    }

    /// The time since the last lap goes to `phase`, under `detail` (a message's type).
    mutating func lap(_ phase: Phase, _ detail: String, at now: Double) {
        let spent = now - last
        phases[phase, default: 0] += spent
        let so = details[phase, default: [:]][detail] ?? (0, 0)
        details[phase, default: [:]][detail] = (so.seconds + spent, so.count + 1)
        last = now
    }

    var seconds: Double { last - started }

    /// `slow turn: 55.4 ms: messages 41.0 ms (chunk ×38 30.1 ms, hello ×20 9.9 ms), commit 9.2 ms`:
    /// the parts of at least 1 ms, largest first; nil for a turn that was not slow.
    var slowReport: String? {
        guard seconds >= Self.slowSeconds else { return nil }
        func ms(_ s: Double) -> String { String(format: "%.1f ms", s * 1000) }
        let parts = phases.filter { $0.value >= 0.001 }.sorted { $0.value > $1.value }.map { phase, spent -> String in
            let byDetail = (details[phase] ?? [:]).filter { $0.value.seconds >= 0.001 }.sorted { $0.value.seconds > $1.value.seconds }
                .map { "\($0.key) ×\($0.value.count) \(ms($0.value.seconds))" }
            return "\(phase.rawValue) \(ms(spent))" + (byDetail.isEmpty ? "" : " (\(byDetail.joined(separator: ", ")))")
        }
        return "slow turn: \(ms(seconds)): " + parts.joined(separator: ", ")
    }
}
