/// One unit of work of a render (docs/rendering.md): a piece of the audio track, one
/// segment's audio alone (a per-segment export), or output frames `[startFrame, endFrame)`
/// of one segment. The same value is the planner's output, the coordinator's stored shard,
/// the wire's task and the local renderer's work item; a task is known by its position in
/// its job's list.
public struct ShardTask: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable {
        case video
        /// A piece of the output's audio track: whole segments from `segment` on, output
        /// frames `[startFrame, endFrame)` of the whole output (docs/rendering.md, "Audio in pieces").
        case audio
        /// The audio of `segment` on a timeline of its own, for its own file.
        case segmentAudio
    }
    public var kind: Kind
    public var segment: Int
    /// Output frames of the segment (0 = the segment's first); for a piece of the audio
    /// track, output frames of the whole output.
    public var startFrame: Int64
    public var endFrame: Int64
    /// Where the task's first frame lands on the whole output.
    public var outputStartFrame: Int64

    public init(kind: Kind, segment: Int, startFrame: Int64, endFrame: Int64, outputStartFrame: Int64) {
        self.kind = kind
        self.segment = segment
        self.startFrame = startFrame
        self.endFrame = endFrame
        self.outputStartFrame = outputStartFrame
    }

    /// The piece of the audio track of output frames `frames`, starting with `segment`.
    public static func audio(frames: Range<Int64>, fromSegment segment: Int) -> ShardTask {
        ShardTask(kind: .audio, segment: segment, startFrame: frames.lowerBound, endFrame: frames.upperBound,
                  outputStartFrame: frames.lowerBound)
    }

    /// The audio of one segment, for its own file.
    public static func audio(ofSegment segment: Int) -> ShardTask {
        ShardTask(kind: .segmentAudio, segment: segment, startFrame: 0, endFrame: 0, outputStartFrame: 0)
    }

    /// Video frames the task encodes (0 for audio).
    public var frameCount: Int64 { kind == .video ? endFrame - startFrame : 0 }
}

/// How a job is cut into tasks (docs/rendering.md). A pure function of the timeline and the
/// encoder settings — never of the number of workers — so that a render with one worker
/// and with twenty gives the same bytes: x264's rate control looks ahead across frames,
/// so moving a shard boundary would change the encoded pictures.
public struct Plan: Hashable, Sendable {
    /// What a job writes: one file of the whole timeline, or one file per segment (the
    /// SDK's `export(segment:)`). Only the audio differs: the video shards are the same.
    public enum Layout: String, Codable, Sendable {
        case whole, segments
    }

    /// The audio first: the pieces of the track (or, for a per-segment export, each
    /// segment's audio), then the video shards in output order. Pieces are short, so they
    /// hold the first picture back only on a farm of a few slots (docs/rendering.md,
    /// "Audio in pieces").
    public var tasks: [ShardTask]
    /// Frames between keyframes (the GOP); every shard but a segment's last, and a long
    /// job's first two (the lead shard's cut), is a multiple.
    public var keyframeInterval: Int64
    public var totalFrames: Int64

    /// Shards are at most `shardKeyframeIntervals` GOPs long (default 2: about 4 s at the
    /// 2 s default keyframe interval), so long exports give many shards to spread out.
    public init(timeline: Timeline, keyframeIntervalSeconds: Rational, shardKeyframeIntervals: Int64 = 2,
                layout: Layout = .whole) {
        let gop = max(1, (keyframeIntervalSeconds / timeline.frameDuration).roundedHalfUp)
        let maxFrames = gop * max(1, shardKeyframeIntervals)
        var tasks: [ShardTask] = switch layout {
        case .whole: AudioPieces.plan(timeline.segments, frameDuration: timeline.frameDuration)
        case .segments: timeline.segments.filter(\.hasAudio).map { .audio(ofSegment: $0.index) }
        }
        var video: [ShardTask] = []
        for segment in timeline.segments {
            var start: Int64 = 0
            while start < segment.frameCount {
                var end = min(segment.frameCount, start + maxFrames)
                // A short tail joins the shard before it rather than starting a tiny chunk.
                if segment.frameCount - end < gop / 2 { end = segment.frameCount }
                video.append(ShardTask(kind: .video, segment: segment.index, startFrame: start, endFrame: end,
                                       outputStartFrame: segment.outputStartFrame + start))
                start = end
            }
        }
        self.tasks = tasks + Self.withLeadShard(video, keyframeInterval: gop)
        keyframeInterval = gop
        totalFrames = timeline.totalFrames
    }

    /// Keyframe intervals per shard for a farm of `slots` render slots (docs/scale.md,
    /// "Shard length"): 2, unless that gives fewer shards than the farm has slots, then 1 —
    /// the shortest shard halves the tail the whole farm waits for, and a shard's own
    /// overhead is a few milliseconds. Longer shards never won in the capacity model.
    /// `slots` ≤ 0: unknown, 2.
    public static func shardKeyframeIntervals(timeline: Timeline, keyframeIntervalSeconds: Rational, slots: Int) -> Int64 {
        guard slots > 0 else { return 2 }
        let twoGOPs = Plan(timeline: timeline, keyframeIntervalSeconds: keyframeIntervalSeconds, shardKeyframeIntervals: 2)
        return twoGOPs.videoShards.count < slots ? 1 : 2
    }

    /// A job of at least this many video shards starts with a lead shard.
    public static let leadShardMinimumShards = 8

    /// The first video shard of a long job cut at half a keyframe interval (docs/rendering.md,
    /// "The lead shard"): its chunk, the first the live preview and a watching user wait for,
    /// comes in about half the time of a whole interval's. The cut costs one keyframe more
    /// at that frame; the shards after it keep the keyframe grid.
    static func withLeadShard(_ shards: [ShardTask], keyframeInterval gop: Int64) -> [ShardTask] {
        guard shards.count >= leadShardMinimumShards, let first = shards.first,
              gop >= 2, first.frameCount >= gop else { return shards }
        let cut = first.startFrame + gop / 2
        var lead = first, rest = first
        lead.endFrame = cut
        rest.startFrame = cut
        rest.outputStartFrame = first.outputStartFrame + (cut - first.startFrame)
        return [lead, rest] + shards.dropFirst()
    }

    /// The video shards, in output order.
    public var videoShards: [ShardTask] { tasks.filter { $0.kind == .video } }
}
