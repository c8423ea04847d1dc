import Foundation
import Farm
import RenderEngine
import Synchronization

/// Writes a `ProgressMeter`'s lines to stderr: redrawn in place on a terminal, appended
/// otherwise (logs, CI).
final class ProgressPrinter: Sendable {
    private let isTerminal: Bool
    /// The meter and its last reading (for the final line), changed together; lines are
    /// written under the same lock, so two callers' lines never cross.
    private struct State {
        var meter: ProgressMeter
        var last: ProgressMeter.Reading?
    }
    private let state: Mutex<State>

    init(isTerminal: Bool = isatty(STDERR_FILENO) != 0) {
        self.isTerminal = isTerminal
        state = Mutex(State(meter: ProgressMeter(mode: isTerminal ? .redrawn : .appended)))
    }

    /// A local render's progress.
    func update(_ p: LocalRender.Progress) {
        show(ProgressMeter.Reading(framesDone: p.framesDone, totalFrames: p.totalFrames, videoShardsDone: p.videoShardsDone,
                                   videoShards: p.videoShards, elapsed: p.elapsed))
    }

    /// A farm job's progress (from `watch`): its finished shards' frames and what its
    /// running shards have encoded. `elapsed`: seconds since the render began, else since
    /// the job was created.
    func update(_ s: JobStatus, elapsed: Double? = nil) {
        let video = s.videoShards ?? s.shards
        let frames = s.state == .done ? s.totalFrames : min(s.totalFrames, s.framesDone + (s.framesInProgress ?? 0))
        show(ProgressMeter.Reading(framesDone: Int(frames), totalFrames: Int(s.totalFrames), videoShardsDone: video.done,
                                   videoShards: video.total, elapsed: elapsed ?? max(0.001, Date().timeIntervalSince1970 - s.created)))
    }

    /// A batch's progress: its variants' frames and video shards together.
    func update(_ b: BatchStatus) {
        let started = b.variants.map(\.created).min() ?? Date().timeIntervalSince1970
        let done = b.variants.reduce(0) { $0 + ($1.videoShards ?? $1.shards).done }
        let total = b.variants.reduce(0) { $0 + ($1.videoShards ?? $1.shards).total }
        let inProgress = b.variants.reduce(Int64(0)) { $0 + ($1.framesInProgress ?? 0) }
        show(ProgressMeter.Reading(framesDone: Int(min(b.totalFrames, b.framesDone + inProgress)), totalFrames: Int(b.totalFrames),
                                   videoShardsDone: done, videoShards: total, elapsed: max(0.001, Date().timeIntervalSince1970 - started)))
    }

    /// The final line, once, if the render succeeded (`elapsed`: its whole time, when the
    /// caller knows it better than the last reading); on a terminal a failed render's
    /// error then starts a line of its own.
    func finish(succeeded: Bool = true, elapsed: Double? = nil) {
        state.withLock { state in
            var reading = state.last
            if let elapsed { reading?.elapsed = elapsed }
            if let line = reading.flatMap({ state.meter.finish($0, succeeded: succeeded) }) {
                write(isTerminal ? "\r\(line)\u{1B}[K\n" : "\(line)\n")
            } else if isTerminal, state.meter.hasDrawn {
                write("\n")
            }
        }
    }

    /// Ends a redrawn line so that a line of another kind can follow it (a batch's
    /// variant that ended); the next reading draws afresh below it.
    func breakLine() {
        guard isTerminal else { return }
        state.withLock { state in
            if state.meter.lineBroken() { write("\n") }
        }
    }

    private func show(_ reading: ProgressMeter.Reading) {
        state.withLock { state in
            state.last = reading
            guard let line = state.meter.update(reading) else { return }
            write(isTerminal ? "\r\(line)\u{1B}[K" : "\(line)\n")
        }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
