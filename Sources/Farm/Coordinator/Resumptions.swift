/// Jobs of the last run being resumed (docs/operations.md, "Restarts"): each is built and
/// its kept chunks checked on the I/O lane, and what a client asks of one meanwhile — a
/// cancel, a new priority — waits here until it joins the scheduler.
struct Resumptions {
    /// Each job being resumed, with the content ids it reads (which the sweep keeps).
    private var media: [String: Set<String>] = [:]
    private var cancelled: Set<String> = []
    private var priorities: [String: Int] = [:]
    private var farmPriorities: [String: Int] = [:]

    func contains(_ id: String) -> Bool { media[id] != nil }

    /// The uploads the jobs being resumed read.
    var mediaInUse: Set<String> { Set(media.values.joined()) }

    mutating func begin(_ id: String, reading contentIDs: Set<String>) { media[id] = contentIDs }

    /// Holds a cancel for a job being resumed; whether it is one.
    mutating func cancel(_ id: String) -> Bool {
        guard contains(id) else { return false }
        cancelled.insert(id)
        return true
    }

    /// Holds a new priority for a job being resumed; whether it is one.
    mutating func setPriority(_ priority: Int, farmWide: Bool = false, of id: String) -> Bool {
        guard contains(id) else { return false }
        if farmWide { farmPriorities[id] = priority } else { priorities[id] = priority }
        return true
    }

    /// The job is built (or failed to be): what was asked of it meanwhile, or nil if it was
    /// not being resumed (already handled).
    mutating func finish(_ id: String) -> (cancelled: Bool, priority: Int?, farmPriority: Int?)? {
        guard media.removeValue(forKey: id) != nil else { return nil }
        return (cancelled.remove(id) != nil, priorities.removeValue(forKey: id), farmPriorities.removeValue(forKey: id))
    }
}
