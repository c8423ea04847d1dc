import Foundation
import ReelTestSupport
@testable import RenderEngine
import SessionKit
import Testing
@testable import Farm

struct StillCacheTests {
    private func plan(time: Int64, width: Int = 100, filters: [SessionFilter] = []) -> StillPlan {
        StillPlan(source: "a.mp4", orientation: .up, sourceTime: Rational(time, 30)!, cropRect: Rect(x: 0, y: 0, width: 640, height: 360),
                  width: width, height: 56, filters: filters, png: false)
    }

    @Test func keysChangeWithWhatIsDrawnAndNothingElse() throws {
        let base = try StillCache.key(mediaID: "sha256:aa", plan: plan(time: 1), filterFiles: [:])
        #expect(try base == StillCache.key(mediaID: "sha256:aa", plan: plan(time: 1), filterFiles: [:]))
        #expect(try base != StillCache.key(mediaID: "sha256:bb", plan: plan(time: 1), filterFiles: [:]))
        #expect(try base != StillCache.key(mediaID: "sha256:aa", plan: plan(time: 2), filterFiles: [:]))
        #expect(try base != StillCache.key(mediaID: "sha256:aa", plan: plan(time: 1, width: 101), filterFiles: [:]))
        let lut = [SessionFilter(type: "lut", normalizedIntensity: 80, file: "x.cube")]
        // A LUT is its content, not its name: the same file elsewhere is the same picture, an edited one is not.
        let one = try StillCache.key(mediaID: "sha256:aa", plan: plan(time: 1, filters: lut), filterFiles: ["x.cube": "sha256:11"])
        #expect(one != base)
        #expect(try one != StillCache.key(mediaID: "sha256:aa", plan: plan(time: 1, filters: lut), filterFiles: ["x.cube": "sha256:22"]))
    }

    @Test func leastRecentlyUsedPicturesGoFirstAndTheIndexSurvivesReopening() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let keys = try (0..<5).map { try StillCache.key(mediaID: "sha256:m\($0 % 2)", plan: plan(time: Int64($0)), filterFiles: [:]) }
        do {
            let cache = try StillCache(directory: dir, limit: 3000)
            for key in keys.prefix(3) {
                try Data(count: 1000).write(to: try cache.newFile(key, png: false))
                try cache.store(key, png: false, media: "m", shown: .zero)
                Thread.sleep(forTimeInterval: 0.01)
            }
            #expect(try cache.lookup(keys[0], png: false) != nil)   // keys[0] is now the most recent
            Thread.sleep(forTimeInterval: 0.01)
            try Data(count: 1000).write(to: try cache.newFile(keys[3], png: false))
            try cache.store(keys[3], png: false, media: "m", shown: .one)
            #expect(try cache.lookup(keys[1], png: false) == nil)   // the least recently used went
            #expect(try cache.totalBytes() == 3000)
        }
        let reopened = try StillCache(directory: dir, limit: 3000)
        #expect(try reopened.lookup(keys[0], png: false) != nil)
        #expect(try reopened.lookup(keys[3], png: false)?.shown == .one)   // the time shown survives too
        #expect(try reopened.invalidate(media: ["m"]) == 3 && reopened.count() == 0)
    }

    @Test func rendezvousMovesOnlyTheMediaOfALostWorker() {
        let workers = (0..<5).map { "w\($0)" }
        let media = (0..<200).map { "sha256:\($0)" }
        let before = Dictionary(uniqueKeysWithValues: media.map { ($0, StillsBroker.rendezvous(mediaID: $0, workers: workers)[0]) })
        #expect(Set(before.values).count == 5)   // spread over every worker
        let after = Dictionary(uniqueKeysWithValues: media.map { ($0, StillsBroker.rendezvous(mediaID: $0, workers: workers.filter { $0 != "w2" })[0]) })
        for id in media where before[id] != "w2" { #expect(after[id] == before[id]) }
        // Its media go to their second choice.
        for id in media where before[id] == "w2" { #expect(after[id] == StillsBroker.rendezvous(mediaID: id, workers: workers)[1]) }
    }
}
