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
