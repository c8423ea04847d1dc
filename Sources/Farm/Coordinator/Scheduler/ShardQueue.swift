/// Queued shard indices, lowest first: a binary min-heap with lazy deletion. A shard
/// taken from the middle, or no longer queued, stays in the heap until it reaches the
/// top and the owner's `isQueued` says it is stale, so take and requeue are O(log n)
/// instead of a scan of every shard of a 50,000-shard job.
struct ShardQueue {
    private var heap: [Int] = []

    var isEmpty: Bool { heap.isEmpty }

    mutating func push(_ shard: Int) {
        heap.append(shard)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The lowest index still queued, after dropping stale entries from the top.
    mutating func first(isQueued: (Int) -> Bool) -> Int? {
        while let top = heap.first {
            if isQueued(top) { return top }
            popTop()
        }
        return nil
    }

    /// The lowest queued index that `accept`s: the top, else a scan (only when the top is
    /// refused, e.g. it failed on the asking worker).
    mutating func first(isQueued: (Int) -> Bool, where accept: (Int) -> Bool) -> Int? {
        guard let top = first(isQueued: isQueued) else { return nil }
        if accept(top) { return top }
        var best: Int?
        for shard in heap where shard < (best ?? Int.max) && isQueued(shard) && accept(shard) { best = shard }
        return best
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && heap[left] < heap[smallest] { smallest = left }
            if right < heap.count && heap[right] < heap[smallest] { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
