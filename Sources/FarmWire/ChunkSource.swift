/// Who made a done shard's chunk: a worker, or nobody — the farm had the chunk already
/// (its chunk cache, or a twin shard of the same recipe) and linked it in. Statuses count
/// the two apart (`JobStatus.workers` and `reusedShards`; `ShardInfo.worker` and `reused`).
public enum ChunkSource: Hashable, Sendable {
    case worker(String)
    case reused

    /// The worker's id, if a worker made it.
    public var workerID: String? {
        if case .worker(let id) = self { return id }
        return nil
    }

    /// As a store column keeps it: the worker's id, or a word no worker's id can be (a
    /// worker's id is its key in hex).
    public var stored: String { workerID ?? Self.reusedColumn }

    public init(stored: String) {
        self = stored == Self.reusedColumn ? .reused : .worker(stored)
    }

    private static let reusedColumn = "reused"
}
