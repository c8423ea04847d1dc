/// `Range: bytes=…` of a download (RFC 9110 §14.1.2), one range: `a-b`, `a-` or `-n`.
struct ByteRange: Equatable {
    let first: Int
    let last: Int   // inclusive
    var count: Int { last - first + 1 }

    /// `nil`: no header or not one we serve whole-file-or-range for (the whole file is
    /// sent); throws `unsatisfiable` when the range starts past the end.
    static func parse(_ header: String?, size: Int) throws -> ByteRange? {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return nil }
            guard size > 0 else { throw Unsatisfiable() }
            return ByteRange(first: max(0, size - suffix), last: size - 1)
        }
        guard let first = Int(parts[0]), first >= 0 else { return nil }
        let last = parts[1].isEmpty ? Int.max : Int(parts[1])
        guard let last, last >= first else { return nil }
        guard first < size else { throw Unsatisfiable() }
        return ByteRange(first: first, last: min(last, size - 1))
    }

    struct Unsatisfiable: Error {}
}

/// `Content-Range: bytes FIRST-LAST/TOTAL` of an upload part (RFC 9110 §14.4).
struct ContentRange: Equatable {
    let first: Int
    let last: Int
    let total: Int
    var count: Int { last - first + 1 }

    static func parse(_ header: String) throws -> ContentRange {
        guard header.hasPrefix("bytes ") else { throw Invalid() }
        let spec = header.dropFirst("bytes ".count)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2, let total = Int(halves[1]) else { throw Invalid() }
        let ends = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2, let first = Int(ends[0]), let last = Int(ends[1]),
              first >= 0, last >= first, last < total else { throw Invalid() }
        return ContentRange(first: first, last: last, total: total)
    }

    struct Invalid: Error {}
}
