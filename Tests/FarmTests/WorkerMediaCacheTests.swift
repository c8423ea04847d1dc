import Foundation
import SessionKit
import ReelTestSupport
import RenderEngine
import Testing
@testable import Farm

@Suite struct WorkerMediaCacheTests {
    private func fetch(_ cache: WorkerMediaCache, _ bytes: Data, keeping: Set<String> = []) throws -> String {
        let dir = try TestEnvironment.scratchDirectory("source")
        let source = dir.appendingPathComponent("f")
        try bytes.write(to: source)
        let id = try ContentID.of(file: source.path)
        try bytes.write(to: try #require(cache.partialURL(id)))
        _ = try cache.complete(id, keeping: keeping)
        return id
    }

    @Test func evictsLeastRecentlyUsedBeyondTheLimitButNotFilesInUse() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let cache = try WorkerMediaCache(directory: dir, limit: 2500)
        let a = try fetch(cache, Data(repeating: 1, count: 1000))
        Thread.sleep(forTimeInterval: 0.02)
        let b = try fetch(cache, Data(repeating: 2, count: 1000))
        Thread.sleep(forTimeInterval: 0.02)
        #expect(cache.cached(a) != nil)   // touching a makes b the oldest
        Thread.sleep(forTimeInterval: 0.02)
        let c = try fetch(cache, Data(repeating: 3, count: 1000))
        #expect(cache.cached(b) == nil)
        #expect(cache.cached(a) != nil && cache.cached(c) != nil)
        // A file a waiting shard needs is kept even when it is the oldest.
        Thread.sleep(forTimeInterval: 0.02)
        let d = try fetch(cache, Data(repeating: 4, count: 1000), keeping: [a, c])
        #expect(cache.cached(d) != nil && cache.cached(a) != nil && cache.cached(c) != nil)
    }

    /// Delivered blocks make the cache look at its size only once a sixteenth of its limit
    /// has come in: a look lists and stats every file, and once per block it slowed an
    /// audio piece's small exact reads eightfold after a video shard had filled the cache.
    @Test func deliveredBlocksEvictOncePastTheSlackNotEachTime() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let cache = try WorkerMediaCache(directory: dir, limit: 16_000)
        #expect(cache.evictionSlack == 1_000)
        let hex = { (n: Int) in String(repeating: String(n), count: 64) }
        // 20 blocks of 1,000 bytes are 20,000 bytes: 4,000 over the limit.
        for n in 1...4 {
            for block in 0..<5 {
                try Data(repeating: UInt8(n), count: 1_000).write(to: dir.appendingPathComponent("\(hex(n)).b\(block)"))
            }
        }
        func bytes() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: dir.path).reduce(0) { total, name in
                total + ((try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(name).path)[.size] as? Int) ?? 0)
            }
        }
        // Small deliveries below the slack: nothing is looked at or removed.
        for _ in 0..<9 { cache.delivered(100, keeping: []) }
        #expect(try bytes() == 20_000)
        // The tenth passes it: the cache is back within its limit.
        cache.delivered(100, keeping: [])
        #expect(try bytes() <= 16_000)
    }

    /// Media larger than the limit evicts other media, never the worker's own scratch and
    /// stills directories that live beside it.
    @Test func evictionTouchesOnlyTheCachesOwnFiles() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let fm = FileManager.default
        for folder in ["work-123", "stills"] {
            try fm.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: true)
            try Data(repeating: 9, count: 5000).write(to: dir.appendingPathComponent("\(folder)/kept"))
        }
        try Data(repeating: 8, count: 5000).write(to: dir.appendingPathComponent("notes.txt"))
        let cache = try WorkerMediaCache(directory: dir, limit: 1000)
        let big = try fetch(cache, Data(repeating: 5, count: 3000))
        _ = try fetch(cache, Data(repeating: 6, count: 3000), keeping: [])
        #expect(cache.cached(big) == nil)
        for kept in ["work-123/kept", "stills/kept", "notes.txt"] {
            #expect(fm.fileExists(atPath: dir.appendingPathComponent(kept).path), "\(kept) was evicted")
        }
    }

    @Test func aFetchThatDoesNotMatchItsContentIDIsDiscarded() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let cache = try WorkerMediaCache(directory: dir, limit: 1 << 20)
        let id = "sha256:" + String(repeating: "ab", count: 32)
        try Data("not those bytes".utf8).write(to: try #require(cache.partialURL(id)))
        #expect(throws: FarmError.self) { try cache.complete(id, keeping: []) }
        #expect(cache.cached(id) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func inPlaceFilesMustMatchTheirContentID() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let cache = try WorkerMediaCache(directory: dir.appendingPathComponent("cache"), limit: 1 << 20)
        let file = dir.appendingPathComponent("m.bin")
        try Data("media".utf8).write(to: file)
        let id = try ContentID.of(file: file.path)
        #expect(cache.inPlace(file.path, contentID: id)?.path == file.path)
        #expect(cache.inPlace(file.path, contentID: "sha256:" + String(repeating: "0", count: 64)) == nil)
        #expect(cache.inPlace(dir.appendingPathComponent("missing").path, contentID: id) == nil)
    }
}
