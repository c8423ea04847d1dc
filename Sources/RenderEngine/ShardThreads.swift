import SessionKit

/// The threads one video shard may use besides its own (docs/rendering.md, "A shard's
/// cores"). Neither changes a byte of the chunk: the pictures and their order are the
/// same, libavcodec's frame threads decode bit-exactly, and the encoder keeps one thread.
public struct ShardThreads: Sendable, Hashable {
    /// The pictures are made on a thread of their own while the shard's thread encodes.
    public var overlapped: Bool
    /// libavcodec frame threads decoding a source of 1080p or less (1: the picture thread decodes).
    public var decode: Int
    /// The same for a larger source (4K), where the decoder is half of a shard's CPU.
    public var decodeLarge: Int

    public init(overlapped: Bool, decode: Int, decodeLarge: Int? = nil) {
        self.overlapped = overlapped
        self.decode = max(1, decode)
        self.decodeLarge = max(1, decodeLarge ?? decode)
    }

    /// Everything on the shard's thread.
    public static let single = ShardThreads(overlapped: false, decode: 1)

    /// More decode threads than this gain little and cost a frame each in flight (about
    /// 25 MB at 4K 10-bit, docs/rendering.md, "A shard's cores").
    public static let maximumDecodeThreads = 4

    /// Sources of more pixels than 1920 × 1088 decode on `decodeLarge` threads.
    public static let largeSourcePixels = 1920 * 1088

    /// The frame threads for a source of `size` (its natural size).
    public func decodeThreads(for size: Size) -> Int {
        size.width * size.height > Double(Self.largeSourcePixels) ? decodeLarge : decode
    }

    /// For a worker running up to `shardsAtOnce` shards on `cores` cores: each shard's
    /// share of the cores (at least one) decodes, up to `maximumDecodeThreads`; a larger
    /// source than 1080p, with a share of several cores, on one thread more (libavcodec's
    /// own default, cores + 1: a frame thread waiting for rows of its reference picture
    /// leaves its core to the extra one). `decodeThreads` > 0 overrides both
    /// (`--decode-threads`).
    public static func sharing(cores: Int, among shardsAtOnce: Int, decodeThreads: Int = 0) -> ShardThreads {
        let share = max(1, cores / max(1, shardsAtOnce))
        guard decodeThreads <= 0 else {
            return ShardThreads(overlapped: shardsAtOnce < cores, decode: decodeThreads)
        }
        return ShardThreads(overlapped: shardsAtOnce < cores, decode: min(share, maximumDecodeThreads),
                            decodeLarge: share >= 2 ? min(share + 1, maximumDecodeThreads) : 1)
    }
}
