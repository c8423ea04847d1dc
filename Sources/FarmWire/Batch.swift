// Batches (docs/api.md, "Batches"): one session rendered for many sets of media, one job
// per variant, followed as one.

/// One output of a batch: its name (the file is NAME.mp4) and the sources it replaces.
public struct BatchVariant: Codable, Sendable, Equatable {
    public var name: String
    /// OLD → NEW, as `--replace OLD=NEW`.
    public var replace: [String: String]

    public init(name: String, replace: [String: String]) {
        self.name = name
        self.replace = replace
    }

    /// A name is a file name on every system the outputs go to: letters, digits, `.`, `_`
    /// and `-`, 1 … 100 of them, not starting with `.` or `-`.
    public static func problem(ofName name: String) -> String? {
        guard !name.isEmpty, name.count <= 100 else { return "a name is 1 … 100 characters; this one has \(name.count)" }
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }),
              let first = name.first, first != ".", first != "-" else {
            return "'\(name.prefix(100))' is not a name: use letters, digits, '.', '_' and '-', not first '.' or '-'"
        }
        return nil
    }

    /// The most variants one batch takes.
    public static let limit = 10_000
}

/// A variant's job.
public struct VariantJob: Codable, Sendable, Equatable {
    public var name: String
    public var jobID: String

    public init(name: String, jobID: String) {
        self.name = name
        self.jobID = jobID
    }
}

/// Where a batch stands, from its variants' jobs.
public enum BatchPhase: String, Codable, Sendable {
    /// Some variant has not ended.
    case rendering
    /// Every variant is done.
    case done
    /// Every variant has ended, some done and some not.
    case partial
    /// Every variant has ended and none is done.
    case failed
}

/// A batch's status: its variants' jobs, and totals over them.
public struct BatchStatus: Codable, Sendable, Equatable {
    public var batchID: String
    public var state: BatchPhase
    public var framesDone: Int64
    public var totalFrames: Int64
    /// Shards of all variants, and those that took a chunk rendered for another shard
    /// (a twin, or the chunk cache) instead of rendering it.
    public var shards: Int
    public var reusedShards: Int
    public var variants: [JobStatus]

    /// `nil` for no jobs.
    public init?(batchID: String, variants: [JobStatus]) {
        guard !variants.isEmpty else { return nil }
        self.batchID = batchID
        self.variants = variants
        framesDone = variants.reduce(0) { $0 + $1.framesDone }
        totalFrames = variants.reduce(0) { $0 + $1.totalFrames }
        shards = variants.reduce(0) { $0 + $1.shards.total }
        reusedShards = variants.reduce(0) { $0 + $1.reusedShards }
        let done = variants.filter { $0.state == .done }.count
        if !variants.allSatisfy(\.isFinal) {
            state = .rendering
        } else {
            state = done == variants.count ? .done : done == 0 ? .failed : .partial
        }
    }
}
