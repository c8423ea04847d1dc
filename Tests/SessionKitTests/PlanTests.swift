import Testing
@testable import SessionKit

/// The planner's cut of the video (docs/rendering.md, "Pipeline" and "The lead shard").
@Suite struct PlanTests {
    /// One segment per entry of `seconds`, 30 fps sources, keyframes every second (30 frames).
    private func plan(_ seconds: [Double], shardKeyframeIntervals: Int64 = 1) throws -> Plan {
        let segments = seconds.enumerated().map { index, length in
            SessionVideoSegment(source: "s\(index)", trimDuration: Fixtures.time(length))
        }
        let media = Dictionary(uniqueKeysWithValues: seconds.indices.map { ("s\($0)", Fixtures.media(seconds: 60)) })
        let timeline = try Timeline(session: Fixtures.session(segments), media: media)
        return Plan(timeline: timeline, keyframeIntervalSeconds: Rational(1), shardKeyframeIntervals: shardKeyframeIntervals)
    }

    @Test func aLongJobStartsWithHalfAKeyframeIntervalAndKeepsTheGridAfter() throws {
        let shards = try plan([20]).videoShards
        // 20 intervals of 30 frames; the first cut at 15.
        #expect(shards.map(\.frameCount) == [15, 15] + Array(repeating: 30, count: 19))
        #expect(shards.map(\.startFrame) == [0, 15] + (1..<20).map { Int64($0) * 30 })
        #expect(shards.map(\.outputStartFrame) == shards.map(\.startFrame))
        for (a, b) in zip(shards, shards.dropFirst()) { #expect(a.endFrame == b.startFrame) }
    }

    @Test func theLeadShardCutsOnlyTheFirstSegmentsFirstShard() throws {
        // Shards of 2 intervals: four 4-s segments give 2 shards each, 8 in all.
        let shards = try plan([4, 4, 4, 4], shardKeyframeIntervals: 2).videoShards
        #expect(shards.map(\.frameCount) == [15, 45, 60] + Array(repeating: 60, count: 6))
        #expect(shards.map(\.segment) == [0, 0, 0, 1, 1, 2, 2, 3, 3])
        #expect(shards.filter { $0.segment == 1 }.map(\.outputStartFrame) == [120, 180])
    }

    @Test func aShortJobIsNotCut() throws {
        // 7 shards, one under the lead shard's threshold of 8.
        let shards = try plan([7]).videoShards
        #expect(shards.count == Plan.leadShardMinimumShards - 1)
        #expect(shards.allSatisfy { $0.frameCount == 30 })
    }

    @Test func aFirstSegmentUnderOneIntervalIsNotCut() throws {
        // The first segment's 20 frames are its only shard; cutting them would add a keyframe
        // the next segment's chunk brings 5 frames later anyway.
        let shards = try plan([2.0 / 3.0, 10]).videoShards
        #expect(shards.first?.frameCount == 20)
        #expect(shards.dropFirst().allSatisfy { $0.frameCount == 30 })
    }
}
