import Foundation
import SessionKit
import Synchronization

/// A media file read straight from its origin by HTTP ranges (docs/operations.md, "Sources
/// by URL"): what the demuxer asks for, in 64 KiB blocks fetched up to 1 MiB at a time and
/// never past the end the render announced (`limitReadAhead`); a sparse reader (the audio
/// task) fetches the ranges the render announced (`expectReads`) exactly.
public final class OriginSource: RangeReadable, Sendable {
    public let object: OriginObject
    public var size: Int64 { object.size }
    public let readsSparsely: Bool
    /// Where the session names the file (its JSON path), for messages.
    private let label: String
    private let client: OriginClient

    static let blockSize = 64 << 10
    /// Blocks one request may carry (1 MiB) once the render announced where its bytes end.
    static let blocksPerRequest = 16
    /// Blocks one request may carry before that: the demuxer reads the header and the index,
    /// then seeks; reading 1 MiB past each would fetch megabytes no shard uses.
    static let blocksBeforeAnnounced = 2
    /// Announced ranges fetched at once by a sparse reader.
    static let rangesAtOnce = 8
    /// Gaps between announced ranges read through rather than cost another request.
    static let gapReadThrough: Int64 = 4 << 10
    /// Blocks kept (16 MiB); the oldest go first.
    static let blocksKept = 256

    fileprivate struct State {
        var blocks: [Int: Data] = [:]
        var order: [Int] = []
        /// `nil` until the render announces it (`limitReadAhead`).
        var readAheadEnd: Int64?
        var expected: [Range<Int64>] = []
        var held: [Int: Data] = [:]
    }

    private let state = Mutex(State())

    public init(_ object: OriginObject, label: String, client: OriginClient, readsSparsely: Bool = false) {
        self.object = object
        self.label = label
        self.client = client
        self.readsSparsely = readsSparsely
    }

    public func limitReadAhead(to end: Int64) { state.withLock { $0.readAheadEnd = max(0, end) } }

    public func expectReads(_ ranges: [Range<Int64>]) {
        guard readsSparsely else { return }
        let merged = ByteRanges.merged(ranges, within: size, longest: Int64(Self.blockSize * Self.blocksPerRequest), gap: Self.gapReadThrough)
        state.withLock { $0.expected = merged; $0.held = [:] }
    }

    public func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        guard offset < size, count > 0 else { return 0 }
        let (data, start) = try bytes(at: offset)
        let n = min(count, data.count - start)
        guard n > 0 else { return 0 }
        data.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress.unsafelyUnwrapped + start, byteCount: n) }
        return n
    }

    /// The piece holding `offset` and where `offset` lies in it.
    private func bytes(at offset: Int64) throws -> (Data, Int) {
        if readsSparsely {
            let (expected, held) = state.withLock { ($0.expected, $0.held) }
            if let index = ByteRanges.index(of: offset, in: expected) {
                let range = expected[index]
                if let data = held[index] { return (data, Int(offset - range.lowerBound)) }
                // This range and the next few at once, over the pool's keep-alive
                // connections: an audio track's many small ranges cost a round trip each.
                let batch = Array(index..<min(expected.count, index + Self.rangesAtOnce)).filter { held[$0] == nil }
                let fetched = Mutex<[Int: Result<Data, any Error>]>([:])
                DispatchQueue.concurrentPerform(iterations: batch.count) { i in
                    let result = Result { try fetch(expected[batch[i]]) }
                    fetched.withLock { $0[batch[i]] = result }
                }
                let results = fetched.withLock { $0 }
                let data = try results[index, default: .failure(EngineError("bytes \(range) were not fetched"))].get()
                state.withLock { s in
                    for case let (i, .success(bytes)) in results { s.held[i] = bytes }
                }
                return (data, Int(offset - range.lowerBound))
            }
        }
        let block = Int(offset / Int64(Self.blockSize))
        let start = Int(offset - Int64(block) * Int64(Self.blockSize))
        if let data = state.withLock({ $0.blocks[block] }) { return (data, start) }
        let run = blocksToFetch(from: block)
        let base = Int64(block) * Int64(Self.blockSize)
        let data = try fetch(base..<min(size, base + Int64(run * Self.blockSize)))
        state.withLock { s in
            for i in 0..<run {
                let low = i * Self.blockSize
                guard low < data.count else { break }
                s.keep(data.subdata(in: low..<min(data.count, low + Self.blockSize)), block: block + i)
            }
        }
        return (data.prefix(Self.blockSize), start)
    }

    /// Block `block` and those after it up to the announced end (not past a block held).
    private func blocksToFetch(from block: Int) -> Int {
        state.withLock { s in
            let end = min(s.readAheadEnd ?? .max, size)
            let most = s.readAheadEnd == nil ? Self.blocksBeforeAnnounced : Self.blocksPerRequest
            var run = 1
            while run < most, s.blocks[block + run] == nil,
                  Int64(block + run) * Int64(Self.blockSize) < end { run += 1 }
            return run
        }
    }

    private func fetch(_ range: Range<Int64>) throws -> Data {
        do {
            return try client.read(object, range)
        } catch let error as OriginError {
            throw OriginError(error.kind, "\(label): \(error.message)")
        }
    }
}

extension OriginObject {
    /// Where a demuxer reads this object: a fresh reader (its read-ahead follows one
    /// demuxer), named in messages by its redacted URL; `label` (a JSON path) leads its errors.
    public func input(client: OriginClient, label: String? = nil, sparse: Bool = false) -> MediaInput {
        .ranges(OriginSource(self, label: label ?? url.redacted, client: client, readsSparsely: sparse), name: url.redacted)
    }
}

extension OriginSource.State {
    fileprivate mutating func keep(_ data: Data, block: Int) {
        if blocks.updateValue(data, forKey: block) == nil { order.append(block) }
        while order.count > OriginSource.blocksKept { blocks[order.removeFirst()] = nil }
    }
}
