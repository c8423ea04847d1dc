/// Bytes of a file as merged ranges: what the coordinator has sent a worker of a medium, or
/// an attempt (docs/operations.md, "Scaling": a backup copy goes where the blocks are).
struct HeldBytes: Sendable, Equatable {
    /// Sorted, disjoint, not touching.
    private(set) var ranges: [Range<Int>] = []

    var isEmpty: Bool { ranges.isEmpty }
    var count: Int { ranges.reduce(0) { $0 + $1.count } }

    mutating func insert(_ new: Range<Int>) {
        guard !new.isEmpty else { return }
        // The first range that ends at or after the new one's start, and the first that
        // starts after its end: those between touch it and merge into it.
        let first = ranges.firstIndex { $0.upperBound >= new.lowerBound } ?? ranges.endIndex
        let last = ranges[first...].firstIndex { $0.lowerBound > new.upperBound } ?? ranges.endIndex
        let merged = ranges[first..<last].reduce(new) { min($0.lowerBound, $1.lowerBound)..<max($0.upperBound, $1.upperBound) }
        ranges.replaceSubrange(first..<last, with: [merged])
    }

    /// Bytes in both.
    func overlap(_ other: HeldBytes) -> Int {
        var (i, j, total) = (0, 0, 0)
        while i < ranges.count, j < other.ranges.count {
            let a = ranges[i], b = other.ranges[j]
            total += max(0, min(a.upperBound, b.upperBound) - max(a.lowerBound, b.lowerBound))
            if a.upperBound < b.upperBound { i += 1 } else { j += 1 }
        }
        return total
    }
}
