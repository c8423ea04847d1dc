import Foundation
import SessionKit

/// What a still server keeps between requests (docs/rendering.md, "Pictures at a time"):
/// the clips it read last, open and positioned (`ClipReader`), and the frames it decoded
/// last (`DecodedFrames`), both bounded. One thread owns it: a worker's still thread, or
/// one `reel` process.
public final class StillDecoders {
    /// At most this many clips stay open (each holds a decoder, its frame threads and its
    /// reference frames: 30-80 MB at 1080p, so one by default; another clip reopens in a
    /// few milliseconds, only its position is lost).
    public let clips: Int
    /// Frame threads for a clip opened now: the cores not busy rendering.
    private let threads: () -> Int
    let frames: DecodedFrames
    private var open: [(key: String, reader: ClipReader)] = []   // least recently used first
    /// Clips a reader cannot serve (their pictures come from `FrameSelector`): not opened again.
    private var unsuitable: Set<String> = []

    /// `frameBudget`: bytes of decoded frames kept (a 1080p frame is 3 MB, 6 MB at 10 bits);
    /// the default holds three 1080p keyframes of a filmstrip at 8 bits, one at 10, and
    /// keeps a worker's peak memory within 50 MB of what it was without (docs/benchmarks.md).
    public init(clips: Int = 1, frameBudget: Int = 10 << 20, threads: @escaping () -> Int = StillDecoders.idleCores) {
        self.clips = max(1, clips)
        self.threads = threads
        frames = DecodedFrames(budget: frameBudget)
    }

    /// Every core, up to 4: a picture is asked for while someone waits.
    public static func idleCores() -> Int { frameThreads(cores: ProcessInfo.processInfo.activeProcessorCount, busy: 0) }

    /// Frame threads for a clip opened while `busy` of the machine's `cores` render (a
    /// worker's slots, one core each): the idle ones, at least 1, at most 4.
    public static func frameThreads(cores: Int, busy: Int) -> Int { min(4, max(1, cores - max(0, busy))) }

    /// Keyframes decoded together for a request's tolerant pictures, at most: as many as
    /// the frame budget holds until they are drawn (`ClipReader.prepareKeyframes`).
    public static let keyframeBatch = 4

    /// The open reader of clip `key` (a content id), opening it if needed; nil when the
    /// clip does not suit one (no index): then `FrameSelector` serves it.
    func reader(_ key: String, media: () throws -> MediaInput, origin: Rational) throws -> ClipReader? {
        guard !unsuitable.contains(key) else { return nil }
        if let i = open.firstIndex(where: { $0.key == key }) {
            let entry = open.remove(at: i)
            open.append(entry)
            return entry.reader
        }
        guard let reader = try ClipReader.open(try media(), origin: origin, threads: threads(), memo: frames, key: key) else {
            unsuitable.insert(key)
            return nil
        }
        open.append((key, reader))
        while open.count > clips {
            frames.forget(open.removeFirst().key)
        }
        return reader
    }

    /// Closes a clip whose reader failed, so the next request opens it afresh — or, when
    /// the clip does not suit a reader, sends its pictures to `FrameSelector` from now on.
    func close(_ key: String, unsuitable: Bool = false) {
        open.removeAll { $0.key == key }
        frames.forget(key)
        if unsuitable { self.unsuitable.insert(key) }
    }

    /// Frames decoded by the open clips (tests, benchmark).
    public var framesDecoded: Int { frames.framesDecoded }
}
