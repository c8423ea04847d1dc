import Foundation
import Testing
@testable import ReelCLI

/// docs/operations.md, "The progress line": the meter's rules on made-up readings (no clock).
@Suite struct ProgressMeterTests {
    typealias Reading = ProgressMeter.Reading

    /// A farm's readings: 300 frames in 5 video shards of 60, each finished shard adding
    /// its frames at once every 2 s after a 1-s start, read every 0.25 s.
    static func steppedRun() -> [Reading] {
        stride(from: 0.25, through: 11.5, by: 0.25).map { t in
            let shards = min(5, max(0, Int((t - 1) / 2)))
            return Reading(framesDone: shards * 60, totalFrames: 300, videoShardsDone: shards, videoShards: 5, elapsed: t)
        }
    }

    /// The frames a second a line shows, nil for "--".
    static func fps(in line: String) -> Double? {
        guard let range = line.range(of: #"[0-9.-]+ fps"#, options: .regularExpression) else { return nil }
        return Double(line[range].dropLast(4))
    }

    @Test func onATerminalEachChangeRedrawsAndTheRateNeverFallsToZero() throws {
        var meter = ProgressMeter(mode: .redrawn)
        var lines: [String] = []
        for reading in Self.steppedRun() {
            if let line = meter.update(reading) { lines.append(line) }
        }
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0 != $1 }, "a line drawn twice in a row: \(lines)")
        for line in lines where !line.contains(" 0/300 frames") {
            let rate = try #require(Self.fps(in: line), "no rate after frames were done: \(line)")
            #expect(rate > 0, "\(line)")
            // 60 frames every 2 s: over any window the rate is within the steps' bounds.
            #expect(rate > 10 && rate <= 60, "\(line)")
        }
        #expect(lines.first.map { Self.fps(in: $0) == nil } ?? false, "the rate is unknown before a frame: \(lines.first ?? "")")
        #expect(lines.allSatisfy { $0.contains("video shards") })
        let ended = meter.finish(Self.steppedRun().last!, succeeded: true)
        let final = try #require(ended)
        #expect(final.contains("300 frames in 11.5 s"), "\(final)")
        // The average is the run's: 300 frames over 11.5 s.
        #expect(final.contains(String(format: "(%.1f fps average)", 300 / 11.5)), "\(final)")
        let again = meter.finish(Self.steppedRun().last!, succeeded: true)
        #expect(again == nil, "the final line twice")
        let after = meter.update(Self.steppedRun().last!)
        #expect(after == nil, "a line after the final one")
    }

    @Test func inALogALineAtEachTenthOrEveryFewSecondsNeverTwiceAndNot100() throws {
        // 1000 frames at 25 frames a second for 20 s, then a stall of 10 s, then the rest
        // at 50 a second; read every 0.25 s.
        var readings: [Reading] = []
        var frames = 0
        for step in 1...160 {
            let t = Double(step) * 0.25
            if t <= 20 { frames = Int(t * 25) } else if t > 30 { frames = min(1000, 500 + Int((t - 30) * 50)) }
            readings.append(Reading(framesDone: frames, totalFrames: 1000, videoShardsDone: frames / 100, videoShards: 10, elapsed: t))
        }
        var meter = ProgressMeter(mode: .appended)
        var logged: [(Reading, String)] = []
        for reading in readings {
            if let line = meter.update(reading) { logged.append((reading, line)) }
        }
        let shown = logged.map(\.0.framesDone)
        #expect(Set(shown).count == shown.count, "the same frames logged twice: \(shown)")
        #expect(!logged.contains { $0.1.hasPrefix("render: 100%") }, "100 % belongs to the final line")
        // Every tenth below 100 % is shown, once.
        let tenths = logged.map { $0.0.framesDone * 10 / 1000 }
        #expect(Set(tenths).isSuperset(of: Set(0...9)), "\(tenths)")
        // Between tenths, lines are at least 5 s apart; the stall writes nothing.
        for (a, b) in zip(logged, logged.dropFirst()) where a.0.framesDone * 10 / 1000 == b.0.framesDone * 10 / 1000 {
            #expect(b.0.elapsed - a.0.elapsed >= ProgressMeter.logInterval, "\(a.1) then \(b.1)")
        }
        #expect(!logged.contains { $0.0.elapsed > 20 && $0.0.elapsed <= 30 }, "a line during the stall")
        for (reading, line) in logged where reading.framesDone > 0 {
            #expect((Self.fps(in: line) ?? 0) > 0, "\(line)")
        }
        let ended = meter.finish(readings.last!, succeeded: true)
        let final = try #require(ended)
        #expect(final.hasPrefix("render: done 1000 frames in 40.0 s (25.0 fps average), 10 video shards"), "\(final)")
    }

    @Test func aFailedRenderHasNoFinalLine() {
        var meter = ProgressMeter(mode: .appended)
        let reading = Reading(framesDone: 30, totalFrames: 60, videoShardsDone: 0, videoShards: 1, elapsed: 1)
        _ = meter.update(reading)
        let failed = meter.finish(reading, succeeded: false)
        let later = meter.finish(reading, succeeded: true)
        #expect(failed == nil && later == nil)
    }
}
