/// The largest job a coordinator takes (docs/operations.md, "Limits"): a bigger one is
/// refused with its numbers before anything is stored, so no submission can stall the
/// coordinator's loop or hold its memory.
public struct JobLimits: Sendable {
    /// Segments in one session (`--max-segments`).
    public var segments = 1_000
    /// Shards one job is planned into (`--max-shards`).
    public var shards = 10_000

    public init() {}
}
