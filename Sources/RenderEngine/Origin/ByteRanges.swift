/// Byte ranges a render said it will read (the container's index), made into requests.
public enum ByteRanges {
    /// Clipped to `0..<size`, sorted, ranges that overlap, touch or lie at most `gap` bytes
    /// apart joined while the join stays within `longest` bytes (a longer one is cut where
    /// the previous ends).
    public static func merged(_ ranges: [Range<Int64>], within size: Int64, longest: Int64, gap: Int64 = 0) -> [Range<Int64>] {
        var merged: [Range<Int64>] = []
        let clipped = ranges.map { max(0, $0.lowerBound)..<max(max(0, $0.lowerBound), min(size, $0.upperBound)) }
        for range in clipped.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            guard let last = merged.last, range.lowerBound <= last.upperBound + gap else {
                merged.append(range)
                continue
            }
            if range.upperBound <= last.upperBound { continue }   // inside the last one
            if range.upperBound - last.lowerBound <= longest {
                merged[merged.count - 1] = last.lowerBound..<range.upperBound
            } else if range.lowerBound > last.upperBound {
                merged.append(range)
            } else {
                merged.append(last.upperBound..<range.upperBound)
            }
        }
        return merged
    }

    /// The index of the range holding `offset` in sorted, disjoint `ranges`, if one does.
    public static func index(of offset: Int64, in ranges: [Range<Int64>]) -> Int? {
        var low = 0, high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].lowerBound <= offset { low = mid + 1 } else { high = mid }
        }
        return low > 0 && ranges[low - 1].contains(offset) ? low - 1 : nil
    }
}
