import Foundation
import ReelTestSupport
import RenderEngine
import Synchronization
import Testing
@testable import Farm

/// The worker's block fetcher, played against by the test as the coordinator: the
/// requests it sends, the blocks it is given, and what its readers then see.
struct RangeFetcherTests {
    static let contentID = "sha256:" + String(repeating: "ab", count: 32)
    static let content = Data((0..<(RangeFetcher.blockSize * 3 + 100)).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    final class FakeCoordinator: @unchecked Sendable {
        let wakeup: Wakeup
        let fetcher: RangeFetcher

        init(directory: URL? = nil) throws {
            wakeup = try Wakeup()
            fetcher = RangeFetcher(directory: try directory ?? TestEnvironment.scratchDirectory(), wakeup: wakeup)
        }

        /// The fetcher's next requests, waiting (on its wake-up pipe) for some to be asked.
        func requests() -> [MediaRequest] {
            for _ in 0..<100 {
                let taken = fetcher.takeRequests()
                if !taken.isEmpty { return taken }
                var descriptor = pollfd(fd: wakeup.fileDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&descriptor, 1, 100)
                wakeup.drain()
            }
            return []
        }

        func serve(_ request: MediaRequest) throws {
            let end = min(RangeFetcherTests.content.count, request.offset + request.length)
            let block = MediaBlock(contentID: request.contentID, offset: request.offset, total: RangeFetcherTests.content.count, missing: false)
            #expect(fetcher.deliver(block, data: RangeFetcherTests.content.subdata(in: request.offset..<end)))
        }

        func refuse(_ request: MediaRequest) throws {
            let block = MediaBlock(contentID: request.contentID, offset: request.offset, total: 0, missing: true)
            #expect(fetcher.deliver(block, data: Data()))
        }
    }

    /// What a body run on a thread of its own gives, once it ends.
    final class Outcome<T: Sendable>: Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let result = Mutex<Result<T, any Error>?>(nil)

        init(_ body: @escaping @Sendable () throws -> T) {
            Thread { [self] in
                let value = Result { try body() }
                result.withLock { $0 = value }
                done.signal()
            }.start()
        }

        func get() throws -> T {
            done.wait()
            guard let value = result.withLock({ $0 }) else { throw EngineError("no result") }
            return try value.get()
        }
    }

    /// Reads 16 bytes at `offset` on a thread of its own.
    static func read(_ reader: RemoteSource, at offset: Int64) -> Outcome<[UInt8]> {
        Outcome {
            var bytes = [UInt8](repeating: 0, count: 16)
            let n = try bytes.withUnsafeMutableBytes { try reader.read(at: offset, into: $0.baseAddress!, count: 16) }
            return Array(bytes.prefix(n))
        }
    }

    @Test func aLateRefusalOfAnEndedReadersRequestDoesNotFailTheNextReader() throws {
        let farm = try FakeCoordinator()
        // Reader 1 opens (block 0 tells the size), then reads in block 1: it asks for
        // blocks 1 and 2 at once (one ahead until the render announces its end). Its shard
        // is cancelled before they come.
        let firstStop = StopSignal()
        let opening = Outcome { try farm.fetcher.source(Self.contentID, stop: firstStop) }
        try farm.serve(try #require(farm.requests().first))
        let first = try opening.get()
        let cancelled = Self.read(first, at: Int64(RangeFetcher.blockSize))
        let asked = farm.requests()
        #expect(asked.map(\.offset) == [1, 2].map { $0 * RangeFetcher.blockSize })
        firstStop.raise()
        #expect(throws: RenderCancelled.self) { try cancelled.get() }

        // Reader 2, the next shard of the same media, reads in block 1, still on its way.
        let second = try farm.fetcher.source(Self.contentID, stop: StopSignal())
        let offset = Int64(RangeFetcher.blockSize + 10)
        let read = Self.read(second, at: offset)
        // The coordinator refuses reader 1's requests (its shard ended)...
        for request in asked { try farm.refuse(request) }
        // ...and reader 2 asks again, is served, and reads the right bytes.
        let again = farm.requests()
        #expect(again.first?.offset == RangeFetcher.blockSize)
        for request in again { try farm.serve(request) }
        #expect(try read.get() == Array(Self.content[Int(offset)..<Int(offset) + 16]))
    }

    /// The coordinator queues at most 32 messages for a worker and drops one whose queue
    /// overflows: read-ahead never has more than 16 requests unanswered.
    @Test func readAheadKeepsAtMostSixteenRequestsUnanswered() throws {
        let farm = try FakeCoordinator()
        let total = RangeFetcher.blockSize * 40
        let stop = StopSignal()
        let opening = Outcome { try farm.fetcher.source(Self.contentID, stop: stop) }
        let first = try #require(farm.requests().first)
        let block0 = MediaBlock(contentID: Self.contentID, offset: 0, total: total, missing: false)
        #expect(farm.fetcher.deliver(block0, data: Data(count: RangeFetcher.blockSize)))
        _ = try opening.get()
        #expect(first.offset == 0)
        let waiting = Outcome {
            try farm.fetcher.wait(for: Self.contentID, block: 1, ahead: Array(2...30), generation: 1, stop: stop)
        }
        let asked = farm.requests()
        #expect(asked.count == RangeFetcher.maxInFlight)
        #expect(farm.fetcher.takeRequests().isEmpty)
        // One answer makes room for one more request.
        let answer = MediaBlock(contentID: Self.contentID, offset: asked[0].offset, total: total, missing: false)
        #expect(farm.fetcher.deliver(answer, data: Data(count: RangeFetcher.blockSize)))
        #expect(farm.fetcher.takeRequests().count == 1)
        #expect(farm.fetcher.requestsInFlight == RangeFetcher.maxInFlight)
        // A request whose answer was lost stops counting after a while.
        #expect(farm.fetcher.takeRequests(now: Date().addingTimeInterval(RangeFetcher.inFlightExpiry + 1)).count == 13)
        try waiting.get()
    }

    /// A coordinator that restarted never answers what the one before was asked: on
    /// joining again the worker asks for every awaited block again, and the reader goes on.
    @Test func awaitedBlocksAreAskedForAgainAfterRejoining() throws {
        let farm = try FakeCoordinator()
        let opening = Outcome { try farm.fetcher.source(Self.contentID, stop: StopSignal()) }
        try farm.serve(try #require(farm.requests().first))
        let reader = try opening.get()
        let offset = Int64(RangeFetcher.blockSize + 5)
        let read = Self.read(reader, at: offset)
        let lost = farm.requests()   // sent to a coordinator that then went away
        #expect(!lost.isEmpty)
        #expect(farm.fetcher.takeRequests().isEmpty)   // still awaited: not asked twice
        farm.fetcher.askAgain()
        let again = farm.requests()
        #expect(again.map(\.offset) == lost.map(\.offset))
        for request in again { try farm.serve(request) }
        #expect(try read.get() == Array(Self.content[Int(offset)..<Int(offset) + 16]))
    }

    @Test func aRefusalOfTheReadersOwnRequestFailsIt() throws {
        let farm = try FakeCoordinator()
        let stop = StopSignal()
        let first = Outcome { try farm.fetcher.source(Self.contentID, stop: stop) }
        let asked = farm.requests()
        try farm.refuse(asked[0])
        #expect(Self.code { try first.get() } == .missingMedia)
    }

    /// A block the coordinator holds but cannot read fails its reader with the
    /// coordinator's error, and a block the cache cannot write fails the reader with
    /// `ioFailed`: neither is a short file that looks whole, neither stops the fetcher.
    @Test func aBlockThatCannotBeHadFailsItsReaderWithTheCode() throws {
        let farm = try FakeCoordinator()
        let stop = StopSignal()
        let first = Outcome { try farm.fetcher.source(Self.contentID, stop: stop) }
        let asked = farm.requests()
        var block = MediaBlock(contentID: asked[0].contentID, offset: asked[0].offset, total: 0, missing: false)
        block.error = FarmError(.ioFailed, "the coordinator cannot read it: Input/output error")
        #expect(farm.fetcher.deliver(block, data: Data()))
        #expect(Self.code { try first.get() } == .ioFailed)

        let unwritable = try TestEnvironment.scratchDirectory().appendingPathComponent("not-a-directory")
        try Data("a file where the cache's directory should be".utf8).write(to: unwritable)
        let broken = try FakeCoordinator(directory: unwritable)
        let second = Outcome { try broken.fetcher.source(Self.contentID, stop: stop) }
        let request = try #require(broken.requests().first)
        try broken.serve(request)
        #expect(Self.code { try second.get() } == .ioFailed)
    }

    /// A reader told where the render's bytes end fetches nothing ahead past it; reads
    /// beyond it (the demuxer's own) are still served.
    @Test func readAheadStopsWhereTheRenderSaidItsBytesEnd() throws {
        let farm = try FakeCoordinator()
        let stop = StopSignal()
        let opening = Outcome { try farm.fetcher.source(Self.contentID, stop: stop) }
        for request in farm.requests() { try farm.serve(request) }
        let source = try opening.get()
        let blockSize = RangeFetcher.blockSize
        source.limitReadAhead(to: Int64(2 * blockSize - 1))
        let second = Outcome { () -> Int in
            var byte: UInt8 = 0
            return try source.read(at: Int64(blockSize), into: &byte, count: 1)
        }
        let asked = farm.requests()
        #expect(asked.map(\.offset) == [blockSize], "\(asked.map(\.offset))")   // without the limit: blocks 1, 2 and 3
        for request in asked { try farm.serve(request) }
        #expect(try second.get() == 1)
        let beyond = Outcome { () -> Int in
            var byte: UInt8 = 0
            return try source.read(at: Int64(3 * blockSize), into: &byte, count: 1)
        }
        let late = farm.requests()
        #expect(late.map(\.offset) == [3 * blockSize])
        for request in late { try farm.serve(request) }
        #expect(try beyond.get() == 1)
    }

    private static func code<T>(_ body: () throws -> T) -> FarmErrorCode? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? FarmError)?.code
        }
    }

    /// The audio track's reader fetches the ranges it was told it will read (its
    /// samples) exactly, those ahead with the one it waits for, and nothing between them.
    @Test func aSparseReaderFetchesItsRangesExactly() throws {
        let farm = try FakeCoordinator()
        let stop = StopSignal()
        let opening = Outcome { try farm.fetcher.source(Self.contentID, stop: stop, readAhead: .expectedOnly) }
        let first = farm.requests()
        #expect(first.map(\.offset) == [0], "opening asks for the first block alone: \(first.map(\.offset))")
        for request in first { try farm.serve(request) }
        let source = try opening.get()
        #expect(source.readsSparsely)
        let block = RangeFetcher.blockSize
        // Three samples: two that touch (one range), one far on.
        source.expectReads([Int64(block + 10)..<Int64(block + 400), Int64(block + 400)..<Int64(block + 700),
                            Int64(3 * block + 5)..<Int64(3 * block + 90)])
        let reading = Self.read(source, at: Int64(block + 390))
        let asked = farm.requests()
        #expect(asked.map { [$0.offset, $0.length] } == [[block + 10, 690], [3 * block + 5, 85]], "\(asked.map { [$0.offset, $0.length] })")
        for request in asked { try farm.serve(request) }
        #expect(try reading.get() == Array(Self.content[block + 390..<block + 406]))
        // The far range came with it: read without asking again.
        let later = Self.read(source, at: Int64(3 * block + 80))
        #expect(try later.get() == Array(Self.content[3 * block + 80..<3 * block + 90]), "a read stops at its range's end")
        #expect(farm.fetcher.takeRequests().isEmpty)
    }

    @Test func expectedRangesAreSortedJoinedAndClipped() {
        let size: Int64 = 10_000
        #expect(RemoteSource.merged([500..<600, 0..<100, 100..<200, 150..<180, 9_990..<20_000, 700..<700], within: size)
                == [0..<200, 500..<600, 9_990..<10_000])
    }
}
