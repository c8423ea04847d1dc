import Foundation
import RenderEngine
import Synchronization

/// Blocks of remote media that render threads wait for, fetched by the worker's event
/// loop (docs/operations.md, "Media"). A render thread asks for the block it needs and the
/// next few (read-ahead, all in flight at once); the loop sends the requests, writes each
/// block that arrives into the media cache (`<hex>.b<index>`) and wakes the waiters.
package final class RangeFetcher: Sendable {
    /// 64 KiB: a shard of a long clip reads little beyond its GOPs, and the audio task
    /// little beyond its samples, which lie between the video's.
    package static let blockSize = 64 << 10
    /// Blocks requested ahead of the one a reader waits for (1 MiB).
    static let readAhead = 16

    /// Requests sent and not yet answered, at most: the coordinator queues at most
    /// `Coordinator.peerQueueLimit` (32) messages for a worker and drops a worker whose queue
    /// overflows, so the replies to read-ahead must leave room for assignments and heartbeats.
    static let maxInFlight = 16
    /// An unanswered request stops counting after this long (its reply was lost).
    static let inFlightExpiry: TimeInterval = 30

    private struct State {
        /// Requests for the loop to send.
        var outbox: [MediaRequest] = []
        /// Requests sent and not answered, by content id and offset, with when each was sent.
        var inFlight: [String: [Date]] = [:]
        var inFlightCount: Int { inFlight.values.reduce(0) { $0 + $1.count } }
        /// Exact ranges asked for and not yet here, with the generation that asked.
        var pendingExact: [ExactRange: Int] = [:]
        /// Exact ranges that arrived, until their reader takes them.
        var arrivedExact: [ExactRange: Data] = [:]
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
        // "b64k": blocks of this size (a cache of another block size is never misread).
        MediaLocatorContentID.hex(contentID).map { directory.appendingPathComponent("\($0).b64k\(index)") }
    }

    private static func key(_ contentID: String, _ index: Int) -> String { "\(contentID)#\(index)" }

    /// A byte range of a content id asked for exactly (not as blocks).
    struct ExactRange: Hashable {
        let contentID: String
        let range: Range<Int64>
    }

    // MARK: Render threads

    /// Where a content id's size is kept beside its blocks, for a worker that restarts.
    private func sizeURL(_ contentID: String) -> URL? {
        MediaLocatorContentID.hex(contentID).map { directory.appendingPathComponent("\($0).size") }
    }

    /// A reader of `contentID` by ranges; learns the size from the first block.
    func source(_ contentID: String, stop: StopSignal, readAhead: MediaReadAhead = .contiguous) throws -> RemoteSource {
        let generation = state.withLock { s in
            s.generations[contentID, default: 0] += 1
            return s.generations[contentID, default: 0]
        }
        // Nothing ahead until the size is known.
        try wait(for: contentID, block: 0, ahead: [], generation: generation, stop: stop)
        var size = state.withLock({ $0.sizes[contentID] }) ?? storedSize(contentID)
        if size == nil, let first = blockURL(contentID, 0) {
            // Block 0 outlived the size it came with (evicted apart): fetch it again to learn it.
            unlink(first.path)
            try wait(for: contentID, block: 0, ahead: [], generation: generation, stop: stop)
            size = state.withLock { $0.sizes[contentID] }
        }
        guard let size else { throw EngineError("the coordinator did not say the size of \(contentID)") }
        return RemoteSource(contentID: contentID, size: size, generation: generation, fetcher: self, stop: stop, readAhead: readAhead)
    }

    private func storedSize(_ contentID: String) -> Int64? {
        guard let url = sizeURL(contentID), let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        return Int64(text)
    }

    /// Throws what ends a reader's wait: its shard stopped, the coordinator refused the
    /// media or could not give it since the reader opened, or 120 s passed.
    private func checkStillWaiting(_ contentID: String, generation: Int, stop: StopSignal, deadline: Date, for what: String) throws {
        if stop.isRaised { throw RenderCancelled() }
        let refused = state.withLock { ($0.missing[contentID] ?? 0) >= generation }
        if refused { throw FarmError(.missingMedia, "the coordinator does not have \(contentID)") }
        if let failure = state.withLock({ $0.failed[contentID] }), failure.generation >= generation { throw failure.error }
        guard Date() < deadline else { throw EngineError("\(what) of \(contentID) did not arrive within 120 s") }
    }

    /// Returns once block `index` of `contentID` is in the cache, asking for it (and the
    /// blocks `ahead`, those of them inside the file) whenever it is neither here nor on its way.
    func wait(for contentID: String, block index: Int, ahead: [Int], generation: Int, stop: StopSignal) throws {
        guard let url = blockURL(contentID, index) else { throw EngineError("'\(contentID)' is not a content id") }
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: url.path) {
            try checkStillWaiting(contentID, generation: generation, stop: stop, deadline: deadline, for: "block \(index)")
            let arrival = DispatchSemaphore(value: 0)
            state.withLock { $0.waiters[contentID, default: []].append(arrival) }
            ask(contentID, [index] + ahead, generation: generation)
            if FileManager.default.fileExists(atPath: url.path) { break }   // arrived before we listened
            _ = arrival.wait(timeout: .now() + .milliseconds(250))   // the stop flag is checked at least this often
        }
    }

    private func ask(_ contentID: String, _ blocks: [Int], generation: Int) {
        let size = state.withLock { $0.sizes[contentID] }
        // Before the size is known, only the block itself (the first one tells the size).
        let count = size.map { Int(($0 + Int64(Self.blockSize) - 1) / Int64(Self.blockSize)) } ?? (blocks.first ?? 0) + 1
        let wanted = blocks.filter { block in
            guard block >= 0, block < max(count, 1), let url = blockURL(contentID, block) else { return false }
            return !FileManager.default.fileExists(atPath: url.path)
        }
        let added = state.withLock { s -> Bool in
            var added = false
            for block in wanted where s.pending[Self.key(contentID, block)] == nil {
                s.pending[Self.key(contentID, block)] = generation
                s.outbox.append(MediaRequest(contentID: contentID, offset: block * Self.blockSize, length: Self.blockSize))
                added = true
            }
            return added
        }
        if added { wakeup.signal() }
    }

    /// The bytes of `range` of `contentID` exactly (at most `WireProtocol.blockSize`),
    /// asking for it and the ranges `ahead` whenever it is neither here nor on its way.
    /// Kept by the caller: the fetcher lets go of it.
    func exact(_ contentID: String, _ range: Range<Int64>, ahead: [Range<Int64>], generation: Int, stop: StopSignal) throws -> Data {
        let key = ExactRange(contentID: contentID, range: range)
        let deadline = Date().addingTimeInterval(120)
        while true {
            if let data = state.withLock({ $0.arrivedExact.removeValue(forKey: key) }) { return data }
            try checkStillWaiting(contentID, generation: generation, stop: stop, deadline: deadline, for: "bytes \(range)")
            let arrival = DispatchSemaphore(value: 0)
            let asked = state.withLock { s -> Bool in
                s.waiters[contentID, default: []].append(arrival)
                var asked = false
                for wanted in [range] + ahead {
                    let key = ExactRange(contentID: contentID, range: wanted)
                    guard s.pendingExact[key] == nil, s.arrivedExact[key] == nil else { continue }
                    s.pendingExact[key] = generation
                    s.outbox.append(MediaRequest(contentID: contentID, offset: Int(wanted.lowerBound), length: wanted.count))
                    asked = true
                }
                return asked
            }
            if asked { wakeup.signal() }
            if state.withLock({ $0.arrivedExact[key] != nil }) { continue }   // arrived before we listened
            _ = arrival.wait(timeout: .now() + .milliseconds(250))   // the stop flag is checked at least this often
        }
    }

    // MARK: The event loop

    /// Requests to send now: as many of the waiting ones, in order, as keep at most
    /// `maxInFlight` unanswered.
    package func takeRequests(now: Date = Date()) -> [MediaRequest] {
        state.withLock { s in
            for (key, times) in s.inFlight {
                let live = times.filter { now.timeIntervalSince($0) < Self.inFlightExpiry }
                s.inFlight[key] = live.isEmpty ? nil : live
            }
            let room = max(0, Self.maxInFlight - s.inFlightCount)
            let taken = Array(s.outbox.prefix(room))
            s.outbox.removeFirst(taken.count)
            for request in taken { s.inFlight[Self.flightKey(request.contentID, request.offset), default: []].append(now) }
            return taken
        }
    }

    private static func flightKey(_ contentID: String, _ offset: Int) -> String { "\(contentID)@\(offset)" }

    /// After (re)joining a coordinator: every block and range still awaited is asked for
    /// again, and nothing counts as in flight (the answers of a coordinator that went away
    /// will never come).
    package func askAgain() {
        let asked = state.withLock { s -> Bool in
            s.inFlight = [:]
            let queued = Set(s.outbox.map { Self.flightKey($0.contentID, $0.offset) })
            for key in s.pending.keys.sorted() {
                guard let hash = key.lastIndex(of: "#"), let index = Int(key[key.index(after: hash)...]) else { continue }
                let contentID = String(key[..<hash])
                guard !queued.contains(Self.flightKey(contentID, index * Self.blockSize)) else { continue }
                s.outbox.append(MediaRequest(contentID: contentID, offset: index * Self.blockSize, length: Self.blockSize))
            }
            for range in s.pendingExact.keys.sorted(by: { ($0.contentID, $0.range.lowerBound) < ($1.contentID, $1.range.lowerBound) })
            where !queued.contains(Self.flightKey(range.contentID, Int(range.range.lowerBound))) {
                s.outbox.append(MediaRequest(contentID: range.contentID, offset: Int(range.range.lowerBound), length: range.range.count))
            }
            return !s.outbox.isEmpty
        }
        if asked { wakeup.signal() }
    }

    /// Requests sent and not yet answered (for tests and the worker's log).
    package var requestsInFlight: Int { state.withLock { $0.inFlightCount } }

    /// Takes a block the coordinator sent if a reader asked for it (else returns false: it
    /// belongs to a whole-file fetch). Writes it into the cache, then wakes the readers; a
    /// block the cache cannot take fails the readers that asked for it, not the worker.
    package func deliver(_ block: MediaBlock, data: Data) -> Bool {
        state.withLock { s in
            let key = Self.flightKey(block.contentID, block.offset)
            if var times = s.inFlight[key], !times.isEmpty {
                times.removeFirst()
                s.inFlight[key] = times.isEmpty ? nil : times
            }
        }
        // An exact range and a block can match one reply (a range of one aligned block):
        // both take it.
        let exact = deliverExact(block, data: data)
        return deliverBlock(block, data: data) || exact
    }

    /// Takes a block a reader asked for.
    private func deliverBlock(_ block: MediaBlock, data: Data) -> Bool {
        let index = block.offset / Self.blockSize
        let key = Self.key(block.contentID, index)
        let (generation, newSize) = state.withLock { s -> (Int?, Bool) in
            // A block of the size asked (a whole-file fetch of the same media asks for more).
            let expected = block.missing ? 0 : min(Self.blockSize, max(0, block.total - block.offset))
            guard block.offset % Self.blockSize == 0, block.missing || data.count == expected,
                  let generation = s.pending[key] else { return (nil, false) }
            // A block stays pending until its file is written: a reader that looks between
            // the two must not ask for it again.
            if let error = block.error {
                s.pending[key] = nil
                s.failed[block.contentID] = (max(s.failed[block.contentID]?.generation ?? 0, generation), error)
                return (generation, false)
            }
            if block.missing {
                s.pending[key] = nil
                s.missing[block.contentID] = max(s.missing[block.contentID] ?? 0, generation)
                return (generation, false)
            }
            let known = s.sizes.updateValue(Int64(block.total), forKey: block.contentID) != nil
            return (generation, !known)
        }
        guard let generation else { return false }
        defer {
            let waiters = state.withLock { s in
                s.pending[key] = nil
                return s.waiters.removeValue(forKey: block.contentID) ?? []
            }
            for waiter in waiters { waiter.signal() }
        }
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

extension RangeFetcher {
    /// Takes an exact range a reader asked for (a reply of its length at its offset).
    private func deliverExact(_ block: MediaBlock, data: Data) -> Bool {
        let range = Int64(block.offset)..<Int64(block.offset + data.count)
        let waiters = state.withLock { s -> [DispatchSemaphore]? in
            // A missing or failed answer carries no bytes: matched by its offset alone.
            let key = block.missing || block.error != nil
                ? s.pendingExact.keys.first { $0.contentID == block.contentID && $0.range.lowerBound == Int64(block.offset) }
                : ExactRange(contentID: block.contentID, range: range)
            guard let key, let generation = s.pendingExact.removeValue(forKey: key) else { return nil }
            if let error = block.error {
                s.failed[block.contentID] = (max(s.failed[block.contentID]?.generation ?? 0, generation), error)
            } else if block.missing {
                s.missing[block.contentID] = max(s.missing[block.contentID] ?? 0, generation)
            } else {
                s.arrivedExact[key] = data
            }
            return s.waiters.removeValue(forKey: block.contentID) ?? []
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.signal() }
        return true
    }
}

/// What a reader of remote media fetches ahead of the block it waits for.
package enum MediaReadAhead: Sendable {
    /// The next blocks of the file (a video shard decodes its GOPs in order).
    case contiguous
    /// Nothing ahead, and the ranges the render said it will read fetched exactly (the
    /// audio task: its samples lie between the video's, which it does not read).
    case expectedOnly
}
