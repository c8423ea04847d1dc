import CFFmpeg
import SessionKit

/// Picks, for increasing source times, the frame on screen (docs/timeline.md): the last frame
/// whose presentation time is ≤ t + 1 ms; before the first frame, the first frame.
/// Speed-ups skip frames, slow-downs return the same frame again.
final class FrameSelector {
    static let tolerance = Rational(1, 1000)!

    private let source: VideoSource
    private var current: Frame
    private var currentTime: Rational?
    private var pending: Frame
    private var pendingTime: Rational?
    private var atEnd = false

    init(source: VideoSource, startingAt t: Rational) throws {
        self.source = source
        current = try Frame()
        pending = try Frame()
        try source.seek(to: t)
        try fill()
        // A seek must land at or before the target; if it did not (or found no frame at
        // all), decode from the start.
        if pendingTime.map({ $0 > t + Self.tolerance }) ?? true, t.isPositive {
            try source.rewind()
            atEnd = false
            try fill()
        }
    }

    /// The frame on screen at `t`, and whether it is a different frame from the last call.
    func frame(at t: Rational) throws -> (frame: Frame, isNew: Bool) {
        let limit = t + Self.tolerance
        var advanced = false
        while let time = pendingTime, time <= limit || currentTime == nil {
            swap(&current, &pending)
            currentTime = time
            advanced = true
            try fill()
            if currentTime.map({ $0 > limit }) == true { break }   // before the first frame: the first frame
        }
        guard currentTime != nil else { throw EngineError("\(source.path): no frame at \(formatSeconds(t.doubleValue))") }
        return (current, advanced)
    }

    private func fill() throws {
        av_frame_unref(pending.pointer)
        pendingTime = nil
        guard !atEnd else { return }
        if try source.next(into: pending) {
            pendingTime = source.time(of: pending)
        } else {
            atEnd = true
        }
    }
}
