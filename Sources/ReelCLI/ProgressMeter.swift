import Foundation

/// What the progress line of a render says, and when (docs/operations.md, "The progress line"):
/// readings in, lines out, with no clock or terminal of its own, so every rule is tested
/// on made-up readings.
///
/// * On a terminal (`redrawn`) each reading that changes the text redraws one line: frames,
///   frames a second over the last `rateWindow` seconds, video shards, time left.
/// * Otherwise (`appended`: a log, a pipe, CI) a line when the frames cross a tenth of the
///   total, or `logInterval` seconds after the last line if anything moved; never the same
///   line twice, and not the 100 % one, which is the final line's.
/// * `finish` gives the final line once: frames, seconds and the run's average rate.
///
/// The rate never reads 0 once frames are done: farms report frames in steps (a shard, or
/// a heartbeat's worth), so a window with no step reaches back to the one before.
struct ProgressMeter {
    enum Mode { case redrawn, appended }

    /// One look at the render: seconds since it started.
    struct Reading: Equatable {
        var framesDone: Int
        var totalFrames: Int
        var videoShardsDone: Int
        var videoShards: Int
        var elapsed: Double
    }

    static let rateWindow = 5.0
    static let logInterval = 5.0

    let mode: Mode
    /// When the frames count changed: (seconds, frames), from the render's start (no
    /// frames at 0 s: a job followed from the middle is measured from its creation).
    private var steps: [(at: Double, frames: Int)] = [(0, 0)]
    private var lastText: String?
    /// The appended lines': when the last was written, its frames and shards, its tenth.
    private var lastLogAt = -Double.infinity
    private var lastLogged: (frames: Int, shards: Int)?
    private var lastTenth = 0
    private var finished = false

    init(mode: Mode) { self.mode = mode }

    /// The line to show for `reading`, or nil when nothing is to be written.
    mutating func update(_ reading: Reading) -> String? {
        guard !finished else { return nil }
        record(reading)
        let fraction = reading.totalFrames > 0 ? min(1, Double(reading.framesDone) / Double(reading.totalFrames)) : 0
        let fps = rate(at: reading.elapsed)
        let left = fps.map { Double(max(0, reading.totalFrames - reading.framesDone)) / $0 }
        let stats = "\(reading.framesDone)/\(reading.totalFrames) frames  \(fps.map { String(format: "%.1f", $0) } ?? "--") fps  "
            + "video shards \(reading.videoShardsDone)/\(reading.videoShards)  ETA \(left.map(Self.clock) ?? "--")"
        switch mode {
        case .redrawn:
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let text = "\(bar) \(String(format: "%3.0f", fraction * 100))%  \(stats)"
            guard text != lastText else { return nil }
            lastText = text
            return text
        case .appended:
            // 100 % is the final line's.
            guard reading.totalFrames == 0 || reading.framesDone < reading.totalFrames else { return nil }
            let key = (frames: reading.framesDone, shards: reading.videoShardsDone)
            guard lastLogged.map({ $0 != key }) ?? true else { return nil }
            let tenth = Int(fraction * 10)
            guard tenth > lastTenth || reading.elapsed - lastLogAt >= Self.logInterval else { return nil }
            (lastLogAt, lastLogged, lastTenth) = (reading.elapsed, key, max(lastTenth, tenth))
            return "render: \(String(format: "%.0f", fraction * 100))% \(stats)"
        }
    }

    /// The final line, once: nil after the first call, and for a render that did not
    /// succeed (its error says why on a line of its own).
    mutating func finish(_ reading: Reading, succeeded: Bool) -> String? {
        guard !finished else { return nil }
        finished = true
        guard succeeded else { return nil }
        let seconds = max(reading.elapsed, 0.001)
        let shards = reading.videoShards == 1 ? "1 video shard" : "\(reading.videoShards) video shards"
        return "render: done \(reading.totalFrames) frames in \(String(format: "%.1f", seconds)) s "
            + "(\(String(format: "%.1f", Double(reading.totalFrames) / seconds)) fps average), \(shards)"
    }

    /// Whether a line was drawn that the next output must not overwrite.
    var hasDrawn: Bool { lastText != nil }

    /// The drawn line is left as it stands (`hasDrawn` before); the next reading draws anew.
    mutating func lineBroken() -> Bool {
        defer { lastText = nil }
        return mode == .redrawn && lastText != nil
    }

    private mutating func record(_ reading: Reading) {
        if steps.last?.frames != reading.framesDone { steps.append((reading.elapsed, reading.framesDone)) }
        // Only the steps the rate can still reach back to are kept.
        if let old = steps.lastIndex(where: { $0.at <= reading.elapsed - Self.rateWindow }), old >= 2 {
            steps.removeFirst(old - 1)
        }
    }

    /// Frames a second from the latest step at least `rateWindow` old (or the start) to
    /// now; when the frames have not moved since then, from the step before. Nil until a
    /// frame is done.
    private func rate(at now: Double) -> Double? {
        guard let last = steps.last, last.frames > 0 else { return nil }
        var from = steps.lastIndex { $0.at <= now - Self.rateWindow } ?? 0
        if steps[from].frames == last.frames, from > 0 { from -= 1 }
        let start = steps[from]
        guard start.frames < last.frames, now > start.at else { return nil }
        return Double(last.frames - start.frames) / (now - start.at)
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return String(format: "%d:%02d", s / 60, s % 60)
    }
}
