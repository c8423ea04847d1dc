/// How a job is cut into shards (docs/rendering.md). A pure function of the timeline and the
/// encoder settings — never of the number of workers — so that a render with one worker
/// and with twenty gives the same bytes: x264's rate control looks ahead across frames,
/// so moving a shard boundary would change the encoded pictures.
public struct Plan: Hashable, Sendable, Codable {
    public struct VideoShard: Hashable, Sendable, Codable {
        public var index: Int
        public var segment: Int
        /// Output frames `[startFrame, endFrame)` of the segment (0 = the segment's first).
        public var startFrame: Int64
        public var endFrame: Int64
        /// Where the shard's first frame lands on the whole output.
        public var outputStartFrame: Int64

        public var frameCount: Int64 { endFrame - startFrame }

        public init(index: Int, segment: Int, startFrame: Int64, endFrame: Int64, outputStartFrame: Int64) {
            self.index = index
            self.segment = segment
            self.startFrame = startFrame
            self.endFrame = endFrame
            self.outputStartFrame = outputStartFrame
        }
    }

    public var videoShards: [VideoShard]
    /// Frames between keyframes (the GOP); every shard but a segment's last is a multiple.
    public var keyframeInterval: Int64
    public var totalFrames: Int64

    /// Shards are at most `shardKeyframeIntervals` GOPs long (default 2: about 4 s at the
    /// 2 s default keyframe interval), so long exports give many shards to spread out.
    public init(timeline: Timeline, keyframeIntervalSeconds: Rational, shardKeyframeIntervals: Int64 = 2) {
        let gop = max(1, (keyframeIntervalSeconds / timeline.frameDuration).roundedHalfUp)
        let maxFrames = gop * max(1, shardKeyframeIntervals)
        var shards: [VideoShard] = []
        for segment in timeline.segments {
            var start: Int64 = 0
            while start < segment.frameCount {
                var end = min(segment.frameCount, start + maxFrames)
                // A short tail joins the shard before it rather than starting a tiny chunk.
                if segment.frameCount - end < gop / 2 { end = segment.frameCount }
                shards.append(VideoShard(index: shards.count, segment: segment.index, startFrame: start, endFrame: end,
                                         outputStartFrame: segment.outputStartFrame + start))
                start = end
            }
        }
        videoShards = shards
        keyframeInterval = gop
        totalFrames = timeline.totalFrames
    }
}
