import Foundation
import RenderEngine
import Synchronization

/// Blocks of remote media that render threads wait for, fetched by the worker's event
/// loop (docs/operations.md, "Media"). A render thread asks for the block it needs and the
/// next few (read-ahead, all in flight at once); the loop sends the requests, writes each
/// block that arrives into the media cache (`<hex>.b<index>`) and wakes the waiters.
package final class RangeFetcher: Sendable {
    /// 512 KiB: small enough that a shard of a long clip reads little beyond its GOPs.
    package static let blockSize = 512 << 10
    /// Blocks requested ahead of the one a reader waits for.
    static let readAhead = 3

    private struct State {
        /// Requests for the loop to send: (content id, block index).
        var outbox: [(String, Int)] = []
        /// Blocks asked for and not yet here, with the reader generation that asked.
        var pending: [String: Int] = [:]
        /// Total sizes learned from the coordinator's replies.
        var sizes: [String: Int64] = [:]
        /// Readers opened per content id: a reader is generation N of its content.
        var generations: [String: Int] = [:]
        /// The newest generation whose request the coordinator answered "missing". A
        /// reader fails only for an answer to a request made since it opened: a late
        /// answer to an ended shard's request (the coordinator refuses media no attempt
        /// of this worker needs) says nothing about a shard that came after.
        var missing: [String: Int] = [:]
        /// The newest generation for which a block of the content id could not be had (the
        /// coordinator could not read it, the cache could not write it), and the error its
        /// readers then fail with instead of waiting.
        var failed: [String: (generation: Int, error: FarmError)] = [:]
        /// Readers waiting for a block of a content id: woken by any block of it.
        var waiters: [String: [DispatchSemaphore]] = [:]
    }

    private let state = Mutex(State())
    let directory: URL
    private let wakeup: Wakeup

    package init(directory: URL, wakeup: Wakeup) {
        self.directory = directory
        self.wakeup = wakeup
    }

    func blockURL(_ contentID: String, _ index: Int) -> URL? {
        MediaLocatorContentID.hex(contentID).map { directory.appendingPathComponent("\($0).b\(index)") }
    }

    private static func key(_ contentID: String, _ index: Int) -> String { "\(contentID)#\(index)" }

    // MARK: Render threads

    /// Where a content id's size is kept beside its blocks, for a worker that restarts.
    private func sizeURL(_ contentID: String) -> URL? {
        MediaLocatorContentID.hex(contentID).map { directory.appendingPathComponent("\($0).size") }
    }

    /// A reader of `contentID` by ranges; learns the size from the first block.
    func source(_ contentID: String, stop: StopSignal) throws -> RemoteSource {
        let generation = state.withLock { s in
            s.generations[contentID, default: 0] += 1
            return s.generations[contentID, default: 0]
        }
        try wait(for: contentID, block: 0, generation: generation, stop: stop)
        var size = state.withLock({ $0.sizes[contentID] }) ?? storedSize(contentID)
        if size == nil, let first = blockURL(contentID, 0) {
            // Block 0 outlived the size it came with (evicted apart): fetch it again to learn it.
            unlink(first.path)
            try wait(for: contentID, block: 0, generation: generation, stop: stop)
            size = state.withLock { $0.sizes[contentID] }
        }
        guard let size else { throw EngineError("the coordinator did not say the size of \(contentID)") }
        return RemoteSource(contentID: contentID, size: size, generation: generation, fetcher: self, stop: stop)
    }

    private func storedSize(_ contentID: String) -> Int64? {
        guard let url = sizeURL(contentID), let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        return Int64(text)
    }

    /// Returns once block `index` of `contentID` is in the cache, asking for it (and the
    /// next few) whenever it is neither here nor on its way.
    func wait(for contentID: String, block index: Int, generation: Int, stop: StopSignal, readAheadEnd: Int64 = .max) throws {
        guard let url = blockURL(contentID, index) else { throw EngineError("'\(contentID)' is not a content id") }
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: url.path) {
            if stop.isRaised { throw RenderCancelled() }
            let refused = state.withLock { ($0.missing[contentID] ?? 0) >= generation }
            if refused { throw FarmError(.missingMedia, "the coordinator does not have \(contentID)") }
            if let failure = state.withLock({ $0.failed[contentID] }), failure.generation >= generation { throw failure.error }
            guard Date() < deadline else { throw EngineError("block \(index) of \(contentID) did not arrive within 120 s") }
            let arrival = DispatchSemaphore(value: 0)
            state.withLock { $0.waiters[contentID, default: []].append(arrival) }
            ask(contentID, from: index, generation: generation, readAheadEnd: readAheadEnd)
            if FileManager.default.fileExists(atPath: url.path) { break }   // arrived before we listened
            _ = arrival.wait(timeout: .now() + .milliseconds(250))   // the stop flag is checked at least this often
        }
    }

    private func ask(_ contentID: String, from index: Int, generation: Int, readAheadEnd: Int64) {
        let size = state.withLock { $0.sizes[contentID] }
        // Read-ahead stops at the file's end and at what the render said it needs.
        let end = min(size ?? .max, readAheadEnd)
        let last = end == .max ? index : Int((max(end, 1) - 1) / Int64(Self.blockSize))
        let wanted = (index...max(index, min(last, index + Self.readAhead))).filter { block in
            guard let url = blockURL(contentID, block) else { return false }
            return !FileManager.default.fileExists(atPath: url.path)
        }
        let added = state.withLock { s -> Bool in
            var added = false
            for block in wanted where s.pending[Self.key(contentID, block)] == nil {
                s.pending[Self.key(contentID, block)] = generation
                s.outbox.append((contentID, block))
                added = true
            }
            return added
        }
        if added { wakeup.signal() }
    }

    // MARK: The event loop

    /// Requests to send now.
    package func takeRequests() -> [MediaRequest] {
        state.withLock { s in
            defer { s.outbox.removeAll() }
            return s.outbox.map { MediaRequest(contentID: $0.0, offset: $0.1 * Self.blockSize, length: Self.blockSize) }
        }
    }

    /// Takes a block the coordinator sent if a reader asked for it (else returns false: it
    /// belongs to a whole-file fetch). Writes it into the cache, then wakes the readers; a
    /// block the cache cannot take fails the readers that asked for it, not the worker.
    package func deliver(_ block: MediaBlock, data: Data) -> Bool {
        let index = block.offset / Self.blockSize
        let key = Self.key(block.contentID, index)
        let (generation, newSize) = state.withLock { s -> (Int?, Bool) in
            // A block of the size asked (a whole-file fetch of the same media asks for more).
            let expected = block.missing ? 0 : min(Self.blockSize, max(0, block.total - block.offset))
            guard block.offset % Self.blockSize == 0, block.missing || data.count == expected,
                  let generation = s.pending.removeValue(forKey: key) else { return (nil, false) }
            if let error = block.error {
                s.failed[block.contentID] = (max(s.failed[block.contentID]?.generation ?? 0, generation), error)
                return (generation, false)
            }
            if block.missing {
                s.missing[block.contentID] = max(s.missing[block.contentID] ?? 0, generation)
                return (generation, false)
            }
            let known = s.sizes.updateValue(Int64(block.total), forKey: block.contentID) != nil
            return (generation, !known)
        }
        guard let generation else { return false }
        defer { for waiter in state.withLock({ $0.waiters.removeValue(forKey: block.contentID) ?? [] }) { waiter.signal() } }
        do {
            if newSize, let url = sizeURL(block.contentID) {
                try TemporaryOutput.write(to: url.path) { try Data(String(block.total).utf8).write(to: URL(fileURLWithPath: $0)) }
            }
            guard !block.missing, block.error == nil, let url = blockURL(block.contentID, index) else { return true }
            try TemporaryOutput.write(to: url.path) { try data.write(to: URL(fileURLWithPath: $0)) }
        } catch {
            let failure = FarmError(.ioFailed, "cannot write block \(index) of \(block.contentID) into the media cache: \(error)")
            state.withLock { s in s.failed[block.contentID] = (max(s.failed[block.contentID]?.generation ?? 0, generation), failure) }
        }
        return true
    }
}

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

    func limitReadAhead(to end: Int64) { readAheadEnd.store(max(0, end), ordering: .relaxed) }

    init(contentID: String, size: Int64, generation: Int, fetcher: RangeFetcher, stop: StopSignal) {
        self.contentID = contentID
        self.size = size
        self.generation = generation
        self.fetcher = fetcher
        self.stop = stop
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        guard offset < size, count > 0 else { return 0 }
        let blockSize = Int64(RangeFetcher.blockSize)
        let index = Int(offset / blockSize)
        try fetcher.wait(for: contentID, block: index, generation: generation, stop: stop,
                         readAheadEnd: readAheadEnd.load(ordering: .relaxed))
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
    private let opened = Mutex([String: RemoteSource]())

    package init(_ remote: [String: String], fetcher: RangeFetcher, stop: StopSignal) {
        self.remote = remote
        self.fetcher = fetcher
        self.stop = stop
    }

    /// Readers for the render (each learns its file's size from its first block).
    package func open() throws -> [String: any RangeReadable] {
        var readers: [String: any RangeReadable] = [:]
        for (reference, contentID) in remote {
            let source = try fetcher.source(contentID, stop: stop)
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
