import Foundation
import RenderEngine
import Synchronization

/// Blocks of remote media that render threads wait for, fetched by the worker's event
/// loop (docs/operations.md, "Media"). A render thread asks for the block it needs and the
/// next few (read-ahead, all in flight at once); the loop sends the requests, writes each
/// block that arrives into the media cache (`<hex>.b<index>`) and wakes the waiters.
final class RangeFetcher: Sendable {
    /// 512 KiB: small enough that a shard of a long clip reads little beyond its GOPs.
    static let blockSize = 512 << 10
    /// Blocks requested ahead of the one a reader waits for.
    static let readAhead = 3

    private struct State {
        /// Requests for the loop to send: (content id, block index).
        var outbox: [(String, Int)] = []
        /// Blocks asked for and not yet here.
        var pending: Set<String> = []
        /// Total sizes learned from the coordinator's replies.
        var sizes: [String: Int64] = [:]
        /// Content ids the coordinator said it does not have.
        var missing: Set<String> = []
        /// Readers waiting for a block of a content id: woken by any block of it.
        var waiters: [String: [DispatchSemaphore]] = [:]
    }

    private let state = Mutex(State())
    let directory: URL
    private let wakeup: Wakeup

    init(directory: URL, wakeup: Wakeup) {
        self.directory = directory
        self.wakeup = wakeup
    }

    func blockURL(_ contentID: String, _ index: Int) -> URL? {
        MediaLocatorContentID.hex(contentID).map { directory.appendingPathComponent("\($0).b\(index)") }
    }

    private static func key(_ contentID: String, _ index: Int) -> String { "\(contentID)#\(index)" }

    // MARK: Render threads

    /// A reader of `contentID` by ranges; learns the size from the first block.
    func source(_ contentID: String, stop: StopSignal) throws -> RemoteSource {
        try wait(for: contentID, block: 0, stop: stop)
        guard let size = state.withLock({ $0.sizes[contentID] }) else {
            throw EngineError("the coordinator did not say the size of \(contentID)")
        }
        return RemoteSource(contentID: contentID, size: size, fetcher: self, stop: stop)
    }

    /// Returns once block `index` of `contentID` is in the cache, asking for it (and the
    /// next few) if it is not.
    func wait(for contentID: String, block index: Int, stop: StopSignal) throws {
        guard let url = blockURL(contentID, index) else { throw EngineError("'\(contentID)' is not a content id") }
        let deadline = Date().addingTimeInterval(120)
        var asked = false
        while !FileManager.default.fileExists(atPath: url.path) {
            if stop.isRaised { throw RenderCancelled() }
            let missing = state.withLock { $0.missing.contains(contentID) }
            if missing { throw EngineError("the coordinator does not have \(contentID)") }
            guard Date() < deadline else { throw EngineError("block \(index) of \(contentID) did not arrive within 120 s") }
            let arrival = DispatchSemaphore(value: 0)
            state.withLock { $0.waiters[contentID, default: []].append(arrival) }
            if !asked {
                ask(contentID, from: index)
                asked = true
            }
            if FileManager.default.fileExists(atPath: url.path) { break }   // arrived before we listened
            _ = arrival.wait(timeout: .now() + .milliseconds(250))   // the stop flag is checked at least this often
        }
    }

    private func ask(_ contentID: String, from index: Int) {
        let size = state.withLock { $0.sizes[contentID] }
        let last = size.map { Int(($0 - 1) / Int64(Self.blockSize)) } ?? index
        let wanted = (index...max(index, min(last, index + Self.readAhead))).filter { block in
            guard let url = blockURL(contentID, block) else { return false }
            return !FileManager.default.fileExists(atPath: url.path)
        }
        let added = state.withLock { s -> Bool in
            var added = false
            for block in wanted where s.pending.insert(Self.key(contentID, block)).inserted {
                s.outbox.append((contentID, block))
                added = true
            }
            return added
        }
        if added { wakeup.signal() }
    }

    // MARK: The event loop

    /// Requests to send now.
    func takeRequests() -> [MediaRequest] {
        state.withLock { s in
            defer { s.outbox.removeAll() }
            return s.outbox.map { MediaRequest(contentID: $0.0, offset: $0.1 * Self.blockSize, length: Self.blockSize) }
        }
    }

    /// Takes a block the coordinator sent if a reader asked for it (else returns false: it
    /// belongs to a whole-file fetch). Writes it into the cache, then wakes the readers.
    func deliver(_ block: MediaBlock, data: Data) throws -> Bool {
        let index = block.offset / Self.blockSize
        let key = Self.key(block.contentID, index)
        let mine = state.withLock { s -> Bool in
            // A block of the size asked (a whole-file fetch of the same media asks for more).
            let expected = block.missing ? 0 : min(Self.blockSize, max(0, block.total - block.offset))
            guard block.offset % Self.blockSize == 0, block.missing || data.count == expected,
                  s.pending.remove(key) != nil else { return false }
            if block.missing { s.missing.insert(block.contentID) } else { s.sizes[block.contentID] = Int64(block.total) }
            return true
        }
        guard mine else { return false }
        defer { for waiter in state.withLock({ $0.waiters.removeValue(forKey: block.contentID) ?? [] }) { waiter.signal() } }
        guard !block.missing, let url = blockURL(block.contentID, index) else { return true }
        try TemporaryOutput.write(to: url.path) { try data.write(to: URL(fileURLWithPath: $0)) }
        return true
    }
}

/// A remote media file read through the fetcher's block cache.
final class RemoteSource: RangeReadable, Sendable {
    let contentID: String
    let size: Int64
    private let fetcher: RangeFetcher
    private let stop: StopSignal
    /// Distinct blocks this reader needed (for the worker's log).
    let blocksRead = Mutex(Set<Int>())

    init(contentID: String, size: Int64, fetcher: RangeFetcher, stop: StopSignal) {
        self.contentID = contentID
        self.size = size
        self.fetcher = fetcher
        self.stop = stop
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        guard offset < size, count > 0 else { return 0 }
        let blockSize = Int64(RangeFetcher.blockSize)
        let index = Int(offset / blockSize)
        try fetcher.wait(for: contentID, block: index, stop: stop)
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
final class RemoteSources: Sendable {
    private let remote: [String: String]
    private let fetcher: RangeFetcher
    private let stop: StopSignal
    private let opened = Mutex([String: RemoteSource]())

    init(_ remote: [String: String], fetcher: RangeFetcher, stop: StopSignal) {
        self.remote = remote
        self.fetcher = fetcher
        self.stop = stop
    }

    /// Readers for the render (each learns its file's size from its first block).
    func open() throws -> [String: any RangeReadable] {
        var readers: [String: any RangeReadable] = [:]
        for (reference, contentID) in remote {
            let source = try fetcher.source(contentID, stop: stop)
            readers[reference] = source
            opened.withLock { $0[reference] = source }
        }
        return readers
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
