/// The known name a mistyped one most likely meant: a name that starts with it or it with
/// the name ("sepia" → "sepiaTone"), else the one fewest edits away (case-insensitive
/// Levenshtein distance), if that is at most a third of the name's length.
public enum NearestName {
    public static func suggestion(for name: String, among known: [String]) -> String? {
        let lowered = Array(name.lowercased())
        guard !lowered.isEmpty else { return nil }
        let candidates = known.sorted()
        if let prefixed = candidates.first(where: { $0.lowercased().hasPrefix(name.lowercased()) || name.lowercased().hasPrefix($0.lowercased()) }) {
            return prefixed
        }
        var best: (String, Int)?
        for candidate in candidates {
            let d = distance(lowered, Array(candidate.lowercased()))
            if d < (best?.1 ?? .max) { best = (candidate, d) }
        }
        guard let (candidate, d) = best, d * 3 <= max(lowered.count, candidate.count) else { return nil }
        return candidate
    }

    /// Levenshtein distance: insertions, deletions and substitutions each cost 1.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1] + [Int](repeating: 0, count: b.count)
            for (j, cb) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
