import Foundation
import Farm
import RenderEngine
import Synchronization

/// Render progress on stderr: a redrawn bar on a terminal, a plain line every few
/// seconds otherwise (logs, CI).
final class ProgressPrinter: Sendable {
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private let lastPrinted = Mutex<Double>(-10)

    /// `rate`: frames a second and seconds left as the farm measures them (a job's status),
    /// else the average since the start.
    func update(_ p: LocalRender.Progress, rate: (fps: Double, eta: Double?)? = nil) {
        let fps = rate?.fps ?? (p.elapsed > 0 ? Double(p.framesDone) / p.elapsed : 0)
        let finished = p.totalFrames > 0 && p.framesDone >= p.totalFrames
        let remaining: Double? = finished ? 0 : rate?.eta ?? (p.framesDone > 0 && fps > 0 ? Double(p.totalFrames - p.framesDone) / fps : nil)
        let fraction = p.totalFrames > 0 ? Double(p.framesDone) / Double(p.totalFrames) : 0
        let stats = "\(p.framesDone)/\(p.totalFrames) frames  \(String(format: "%.1f", fps)) fps  "
            + "shards \(p.shardsDone)/\(p.shardCount)  ETA \(remaining.map(Self.clock) ?? "--")"   // "--" until it is known
        if isTerminal {
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            FileHandle.standardError.write(Data("\r\(bar) \(String(format: "%3.0f", fraction * 100))%  \(stats)\u{1B}[K".utf8))
        } else {
            let due = lastPrinted.withLock { last -> Bool in
                guard p.elapsed - last >= 2 || p.framesDone == p.totalFrames else { return false }
                last = p.elapsed
                return true
            }
            if due { FileHandle.standardError.write(Data("render: \(String(format: "%.0f", fraction * 100))% \(stats)\n".utf8)) }
        }
    }

    /// A farm job's progress (from `watch`).
    func update(_ s: JobStatus, elapsed: Double? = nil) {
        let done = s.shards.done
        let total = s.shards.total
        update(LocalRender.Progress(framesDone: Int(s.framesDone), totalFrames: Int(s.totalFrames), shardsDone: done,
                                    shardCount: total, elapsed: elapsed ?? max(0.001, Date().timeIntervalSince1970 - s.created)),
               rate: s.framesPerSecond.map { ($0, s.etaSeconds) })
    }

    /// A batch's progress: its variants' frames and shards together.
    func update(_ b: BatchStatus) {
        let done = b.variants.reduce(0) { $0 + $1.shards.done }
        let started = b.variants.map(\.created).min() ?? Date().timeIntervalSince1970
        update(LocalRender.Progress(framesDone: Int(b.framesDone), totalFrames: Int(b.totalFrames), shardsDone: done,
                                    shardCount: b.shards, elapsed: max(0.001, Date().timeIntervalSince1970 - started)))
    }

    func finish() {
        if isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return String(format: "%d:%02d", s / 60, s % 60)
    }
}
