import Foundation

/// A batch's variants as a JSON Lines file (docs/api.md, "Batches"): one object a line,
/// `{"name": "v1", "replace": {"a.mp4": "b.mp4"}}`; blank lines are skipped.
public enum VariantsFile {
    /// What is wrong, with the 1-based line it is on.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// The variants, each with its 1-based line.
    public static func parse(_ text: String) throws(Problem) -> [(line: Int, variant: BatchVariant)] {
        var variants: [(line: Int, variant: BatchVariant)] = []
        var lines: [String: Int] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let content = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !content.isEmpty else { continue }
            let variant = try parse(line: content, number: line)
            if let problem = BatchVariant.problem(ofName: variant.name) { throw Problem(line: line, message: "name: \(problem)") }
            if let first = lines.updateValue(line, forKey: variant.name) {
                throw Problem(line: line, message: "name '\(variant.name)' is also on line \(first)")
            }
            variants.append((line, variant))
        }
        guard !variants.isEmpty else { throw Problem(line: 1, message: "no variants: one JSON object a line") }
        guard variants.count <= BatchVariant.limit else {
            throw Problem(line: 1, message: "\(variants.count) variants; a batch takes at most \(BatchVariant.limit)")
        }
        return variants
    }

    private static func parse(line content: String, number line: Int) throws(Problem) -> BatchVariant {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(content.utf8)) as? [String: Any] else {
                throw Problem(line: line, message: "not a JSON object: one {\"name\": …, \"replace\": {…}} a line")
            }
            object = parsed
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(line: line, message: "not JSON: \(String(content.prefix(60)))")
        }
        let unknown = Set(object.keys).subtracting(["name", "replace"]).sorted()
        guard unknown.isEmpty else {
            throw Problem(line: line, message: "unknown key\(unknown.count > 1 ? "s" : "") \(unknown.map { "'\($0)'" }.joined(separator: ", ")): "
                + "a variant has a name and a replace")
        }
        guard let name = object["name"] as? String else { throw Problem(line: line, message: "name: a string is needed") }
        guard let pairs = object["replace"] as? [String: Any], !pairs.isEmpty else {
            throw Problem(line: line, message: "replace: an object of OLD: NEW sources is needed")
        }
        var replace: [String: String] = [:]
        for (old, new) in pairs.sorted(by: { $0.key < $1.key }) {
            guard let new = new as? String, !new.isEmpty, !old.isEmpty else {
                throw Problem(line: line, message: "replace.\(old): the new source is a non-empty string")
            }
            replace[old] = new
        }
        return BatchVariant(name: name, replace: replace)
    }
}
