import CFFmpeg
import Foundation

/// Bytes of a media file read by ranges — a farm worker's source that stays on the
/// coordinator (docs/operations.md, "Media"): the demuxer asks for what it needs (the
/// index, then the GOPs of the shard's frames), and only that travels.
public protocol RangeReadable: AnyObject, Sendable {
    var size: Int64 { get }
    /// Reads up to `count` bytes at `offset` into `buffer`; returns the bytes read (0 at the end).
    func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int
    /// The render will need nothing past byte `end` (exclusive) but what the demuxer asks
    /// for: a reader that fetches ahead stops there (docs/operations.md, "Media").
    func limitReadAhead(to end: Int64)
    /// The render will read these byte ranges (from the container's index) besides what
    /// the demuxer reads to open the file: a reader that fetches ahead fetches these.
    func expectReads(_ ranges: [Range<Int64>])
    /// The render reads small pieces far apart (the audio task's samples): the demuxer
    /// then seeks to each instead of reading through the gaps, as a buffered reader does.
    var readsSparsely: Bool { get }
}

extension RangeReadable {
    public func limitReadAhead(to end: Int64) {}
    public func expectReads(_ ranges: [Range<Int64>]) {}
    public var readsSparsely: Bool { false }
}

/// Where a demuxer reads a source: a local file, or ranges of a remote one.
public enum MediaInput: Sendable {
    case file(String)
    case ranges(any RangeReadable, name: String)

    /// For messages: the path, or the name of the remote source.
    public var name: String {
        switch self {
        case .file(let path): path
        case .ranges(_, let name): name
        }
    }
}

/// The libavformat I/O context over a `RangeReadable`: one owner frees the context, its
/// buffer and the retained reader (docs/architecture.md, "C handles").
final class RangeIOContext {
    let context: UnsafeMutablePointer<AVIOContext>
    private let state: Unmanaged<State>

    final class State {
        let source: any RangeReadable
        var position: Int64 = 0
        var error: (any Error)?
        init(_ source: any RangeReadable) { self.source = source }
    }

    private static let bufferSize: Int32 = 64 << 10

    init(_ source: any RangeReadable) throws {
        guard let buffer = av_malloc(Int(Self.bufferSize)) else { throw EngineError("out of memory for an I/O buffer") }
        let state = Unmanaged.passRetained(State(source))
        guard let io = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Self.bufferSize, 0, state.toOpaque(),
                                          Self.readPacket, nil, Self.seek) else {
            av_free(buffer)
            state.release()
            throw EngineError("cannot allocate an I/O context")
        }
        // Direct: every seek goes to `seek` and large reads straight to the reader, so a
        // sparse reader is never asked for the bytes between two samples.
        if source.readsSparsely { io.pointee.direct = 1 }
        context = io
        self.state = state
    }

    deinit {
        var io: UnsafeMutablePointer<AVIOContext>? = context
        av_freep(&io!.pointee.buffer)   // libavformat may have replaced the buffer: free the current one
        avio_context_free(&io)
        state.release()
    }

    /// The first error the reader threw, if any (libavformat only sees EIO).
    var readerError: (any Error)? { state.takeUnretainedValue().error }

    private static let readPacket: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = {
        opaque, buffer, size in
        guard let opaque, let buffer else { return CFFmpeg_AVERROR(EINVAL) }
        let state = Unmanaged<State>.fromOpaque(opaque).takeUnretainedValue()
        do {
            let read = try state.source.read(at: state.position, into: buffer, count: Int(size))
            guard read > 0 else { return CFFmpeg_AVERROR_EOF() }
            state.position += Int64(read)
            return Int32(read)
        } catch {
            if state.error == nil { state.error = error }
            return CFFmpeg_AVERROR(EIO)
        }
    }

    private static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
        guard let opaque else { return Int64(CFFmpeg_AVERROR(EINVAL)) }
        let state = Unmanaged<State>.fromOpaque(opaque).takeUnretainedValue()
        let size = state.source.size
        if whence & AVSEEK_SIZE != 0 { return size }
        let target: Int64
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = state.position + offset
        case SEEK_END: target = size + offset
        default: return Int64(CFFmpeg_AVERROR(EINVAL))
        }
        guard target >= 0 else { return Int64(CFFmpeg_AVERROR(EINVAL)) }
        state.position = target
        return target
    }
}
