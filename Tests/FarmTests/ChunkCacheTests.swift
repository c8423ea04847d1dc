import Foundation
import ReelTestSupport
import Testing
@testable import Farm

/// The coordinator's chunk cache: kept by key, least recently used out past its limit.
struct ChunkCacheTests {
    @Test func overTheLimitTheLeastRecentlyUsedGoFirst() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let cache = try ChunkCache(directory: dir.appendingPathComponent("cache"), limitBytes: 350)
        func chunk(_ name: String) throws -> URL {
            let url = dir.appendingPathComponent(name)
            try Data(repeating: 1, count: 100).write(to: url)
            return url
        }
        for key in ["a", "b", "c"] { try cache.keep(try chunk(key), key: key, sha256: "sum" + key) }
        #expect(cache.totalBytes == 300)
        #expect(cache.lookup("a")?.sha256 == "suma")   // a is now the most recently used
        try cache.keep(try chunk("d"), key: "d", sha256: "sumd")
        // 400 > 350: the least recently used go until 90 % of the limit (315) is kept: only b.
        #expect(cache.totalBytes == 300)
        #expect(cache.lookup("b") == nil)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cache/b.sumb.mp4").path))
        #expect(cache.lookup("a") != nil && cache.lookup("c") != nil && cache.lookup("d") != nil)
        // A new cache over the same directory lists what is there, checksums included.
        let again = try ChunkCache(directory: dir.appendingPathComponent("cache"), limitBytes: 350)
        #expect(again.totalBytes == 300)
        #expect(again.lookup("d")?.sha256 == "sumd")
    }

    @Test func atStartTheLeastRecentlyUsedAreThoseWrittenLongestAgo() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let cacheDirectory = dir.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        for (index, key) in ["a", "b", "c"].enumerated() {
            let url = cacheDirectory.appendingPathComponent("\(key).sum\(key).mp4")
            try Data(repeating: 1, count: 100).write(to: url)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: Double(1000 + (index == 0 ? 9 : index)))],
                                                  ofItemAtPath: url.path)
        }
        // Left by an older release (named by key alone) or by a crash: removed, not read.
        try Data(repeating: 1, count: 100).write(to: cacheDirectory.appendingPathComponent("old.mp4"))
        let cache = try ChunkCache(directory: cacheDirectory, limitBytes: 350)
        #expect(cache.totalBytes == 300)
        #expect(!FileManager.default.fileExists(atPath: cacheDirectory.appendingPathComponent("old.mp4").path))
        let file = dir.appendingPathComponent("d")
        try Data(repeating: 1, count: 100).write(to: file)
        try cache.keep(file, key: "d", sha256: "sumd")
        // b was written first of those left (a was touched last): b goes.
        #expect(cache.lookup("b") == nil && cache.lookup("a") != nil)
    }
}

/// `reel status`'s "state directory" figure is what the files take on disk.
struct StateDirectorySizeTests {
    @Test func theStateDirectoryIsMeasuredAsDuWouldMeasureIt() throws {
        let dir = try TestEnvironment.scratchDirectory()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("chunks/j"), withIntermediateDirectories: true)
        try Data(repeating: 7, count: 1 << 20).write(to: dir.appendingPathComponent("a.bin"))
        try Data(repeating: 9, count: 100_000).write(to: dir.appendingPathComponent("chunks/j/b.bin"))
        let written: Int64 = (1 << 20) + 100_000
        let measured = Coordinator.bytes(under: dir)
        // Whole file-system blocks of each file: at least the bytes, at most a few blocks more.
        #expect(measured >= written && measured < written + 3 * 65_536, "\(measured) for \(written) bytes written")
    }
}
