import Foundation
import RenderEngine
import Synchronization

/// A remote media file read through the fetcher's block cache.
final class RemoteSource: RangeReadable, Sendable {
    let contentID: String
    let size: Int64
    private let generation: Int
    private let fetcher: RangeFetcher
    private let stop: StopSignal
    /// Distinct blocks this reader needed (for the worker's log).
    let blocksRead = Mutex(Set<Int>())
    /// No block past this byte is fetched ahead (`limitReadAhead`).
    private let readAheadEnd = Atomic<Int64>(.max)
    /// The ranges the render said it will read (`expectReads`), merged, in order, and
    /// the bytes of those already fetched, by index.
    private let expected = Mutex<(ranges: [Range<Int64>], held: [Int: Data])>(([], [:]))
    let readAhead: MediaReadAhead

    func limitReadAhead(to end: Int64) { readAheadEnd.store(max(0, end), ordering: .relaxed) }

    var readsSparsely: Bool { readAhead == .expectedOnly }

    /// A reader that reads sparsely fetches the ranges exactly, not the blocks that hold them.
    func expectReads(_ ranges: [Range<Int64>]) {
        guard readAhead == .expectedOnly else { return }
        expected.withLock { $0 = (Self.merged(ranges, within: size), [:]) }
    }

    /// Sorted, touching ranges joined, none longer than a coordinator's reply.
    static func merged(_ ranges: [Range<Int64>], within size: Int64) -> [Range<Int64>] {
        ByteRanges.merged(ranges, within: size, longest: Int64(WireProtocol.blockSize))
    }

    /// Bytes at `offset` from an expected range, if one holds it: at most to its end.
    private func readExpected(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int? {
        let (ranges, held) = expected.withLock { ($0.ranges, $0.held) }
        guard let index = ByteRanges.index(of: offset, in: ranges) else { return nil }
        let range = ranges[index]
        let data: Data
        if let kept = held[index] {
            data = kept
        } else {
            let ahead = Array(ranges[(index + 1)...].prefix(RangeFetcher.readAhead))
            data = try fetcher.exact(contentID, range, ahead: ahead, generation: generation, stop: stop)
            expected.withLock { $0.held[index] = data }
        }
        let start = Int(offset - range.lowerBound), n = min(count, data.count - start)
        guard n > 0 else { return 0 }
        data.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress.unsafelyUnwrapped + start, byteCount: n) }
        return n
    }

    init(contentID: String, size: Int64, generation: Int, fetcher: RangeFetcher, stop: StopSignal, readAhead: MediaReadAhead = .contiguous) {
        self.contentID = contentID
        self.size = size
        self.generation = generation
        self.fetcher = fetcher
        self.stop = stop
        self.readAhead = readAhead
    }

    /// The blocks to ask for with block `index`: before the render announced where its
    /// bytes end, only the next one (the demuxer reads the header and the index, then
    /// seeks: 1 MiB past each would fetch what no shard uses).
    private func ahead(of index: Int) -> [Int] {
        let endBlock = readAheadEnd.load(ordering: .relaxed)
        let announced = endBlock != .max
        let last = announced ? Int((max(endBlock, 1) - 1) / Int64(RangeFetcher.blockSize)) : Int.max
        switch readAhead {
        case .contiguous:
            guard last > index else { return [] }
            return Array((index + 1)...min(last, index + (announced ? RangeFetcher.readAhead : 1)))
        case .expectedOnly:
            return []   // its expected ranges are fetched exactly (`readExpected`)
        }
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        guard offset < size, count > 0 else { return 0 }
        if readsSparsely, let n = try readExpected(at: offset, into: buffer, count: count) { return n }
        let blockSize = Int64(RangeFetcher.blockSize)
        let index = Int(offset / blockSize)
        try fetcher.wait(for: contentID, block: index, ahead: ahead(of: index), generation: generation, stop: stop)
        blocksRead.withLock { _ = $0.insert(index) }
        guard let url = fetcher.blockURL(contentID, index) else { return 0 }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset - Int64(index) * blockSize))
        let wanted = min(count, Int(min(size - offset, Int64(index + 1) * blockSize - offset)))
        let data = try handle.read(upToCount: wanted) ?? Data()
        data.copyBytes(to: buffer.assumingMemoryBound(to: UInt8.self), count: data.count)
        return data.count
    }
}

/// The remote sources of one shard (reference → content id), opened on its render thread.
package final class RemoteSources: Sendable {
    private let remote: [String: String]
    private let fetcher: RangeFetcher
    private let stop: StopSignal
    private let readAhead: MediaReadAhead
    private let opened = Mutex([String: RemoteSource]())

    package init(_ remote: [String: String], fetcher: RangeFetcher, stop: StopSignal, readAhead: MediaReadAhead = .contiguous) {
        self.remote = remote
        self.fetcher = fetcher
        self.stop = stop
        self.readAhead = readAhead
    }

    /// Readers for the render (each learns its file's size from its first block).
    package func open() throws -> [String: any RangeReadable] {
        var readers: [String: any RangeReadable] = [:]
        for (reference, contentID) in remote {
            let source = try fetcher.source(contentID, stop: stop, readAhead: readAhead)
            readers[reference] = source
            opened.withLock { $0[reference] = source }
        }
        return readers
    }

    /// Distinct blocks the shard's readers needed, over all its sources.
    package var blocksRead: Int {
        opened.withLock { $0 }.values.reduce(0) { $0 + $1.blocksRead.withLock { $0.count } }
    }

    /// "shard S read B of N blocks of ID" for each source, for the worker's log.
    func summary(shard: Int) -> String? {
        let lines = opened.withLock { $0 }.values.map { source in
            let total = (source.size + Int64(RangeFetcher.blockSize) - 1) / Int64(RangeFetcher.blockSize)
            return "shard \(shard) read \(source.blocksRead.withLock { $0.count }) of \(total) blocks of \(source.contentID.prefix(19))…"
        }
        return lines.isEmpty ? nil : lines.joined(separator: "; ")
    }
}
