/// The threads one video shard may use besides its own (docs/rendering.md, "A shard's
/// cores"). Neither changes a byte of the chunk: the pictures and their order are the
/// same, libavcodec's frame threads decode bit-exactly, and the encoder keeps one thread.
public struct ShardThreads: Sendable, Hashable {
    /// The pictures are made on a thread of their own while the shard's thread encodes.
    public var overlapped: Bool
    /// libavcodec frame threads decoding the source (1: the picture thread decodes).
    public var decode: Int

    public init(overlapped: Bool, decode: Int) {
        self.overlapped = overlapped
        self.decode = max(1, decode)
    }

    /// Everything on the shard's thread.
    public static let single = ShardThreads(overlapped: false, decode: 1)

    /// More decode threads than this gain little and cost a frame each in flight (about
    /// 25 MB at 4K 10-bit, docs/rendering.md, "A shard's cores").
    public static let maximumDecodeThreads = 4

    /// For a worker running up to `shardsAtOnce` shards on `cores` cores: each shard's
    /// share of the cores (at least one) decodes, up to `maximumDecodeThreads`;
    /// `decodeThreads` > 0 overrides the share (`--decode-threads`).
    public static func sharing(cores: Int, among shardsAtOnce: Int, decodeThreads: Int = 0) -> ShardThreads {
        let share = max(1, cores / max(1, shardsAtOnce))
        return ShardThreads(overlapped: shardsAtOnce < cores,
                            decode: decodeThreads > 0 ? decodeThreads : min(share, maximumDecodeThreads))
    }
}
