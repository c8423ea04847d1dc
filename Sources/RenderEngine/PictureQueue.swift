import CFFmpeg
import Foundation

/// Pictures handed from the thread that decodes and processes a shard's frames to the
/// thread that encodes them (docs/rendering.md, "A shard's cores"), in order, at
/// most `depth` at a time. A picture is a zeroed frame (`Frame.zeroed`, as x264 needs) that
/// the encoder side gives back once the encoder has copied it.
///
/// `@unchecked Sendable`: every field is read and written under `condition`, and a frame
/// belongs to one side at a time — the maker from `blank()` to `put`, the encoder from
/// `next()` to `recycle`.
final class PictureQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private let depth: Int
    private let width: Int
    private let height: Int
    private var made = 0
    private var filled: [Frame] = []
    private var spare: [Frame] = []
    private var ended = false
    private var failure: (any Error)?
    private var stopped = false

    init(width: Int, height: Int, depth: Int = 3) {
        self.width = width
        self.height = height
        self.depth = max(1, depth)
    }

    // MARK: The maker's side

    /// A zeroed picture to fill, waiting while `depth` are in use; nil once the encoder
    /// side has stopped.
    func blank() throws -> Frame? {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            // A frame the encoder still references is not reused; it is dropped and another made.
            if let frame = spare.popLast() {
                if av_frame_is_writable(frame.pointer) != 0 { return frame }
                made -= 1
                continue
            }
            if made < depth {
                made += 1
                return try Frame.zeroed(videoFormat: AV_PIX_FMT_YUV420P, width: width, height: height)
            }
            condition.wait()
        }
        return nil
    }

    func put(_ picture: Frame) {
        condition.lock()
        filled.append(picture)
        condition.signal()
        condition.unlock()
    }

    /// No more pictures: all were put, or making the next one failed.
    func end(failure: (any Error)? = nil) {
        condition.lock()
        ended = true
        self.failure = failure
        condition.broadcast()
        condition.unlock()
    }

    // MARK: The encoder's side

    /// The next picture in order; nil after the last; the maker's error if it failed.
    func next() throws -> Frame? {
        condition.lock()
        defer { condition.unlock() }
        while filled.isEmpty {
            if ended {
                if let failure { throw failure }
                return nil
            }
            condition.wait()
        }
        return filled.removeFirst()
    }

    func recycle(_ picture: Frame) {
        condition.lock()
        spare.append(picture)
        condition.signal()
        condition.unlock()
    }

    /// The encoder side gives up (a cancelled shard, an encoder error): the maker stops
    /// at its next picture.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
