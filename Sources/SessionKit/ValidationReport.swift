/// Everything wrong with a session, found in one pass (docs/session-format.md).
public struct ValidationReport: Hashable, Sendable, Codable {
    public struct Issue: Hashable, Sendable, Codable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { path.isEmpty ? message : "\(path): \(message)" }

        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }
    }

    public var problems: [Issue] = []
    public var warnings: [Issue] = []

    public init() {}

    public var isValid: Bool { problems.isEmpty }

    mutating func problem(_ path: JSONPath, _ message: String) {
        problems.append(Issue(path: path.description, message: message))
    }

    mutating func warning(_ path: JSONPath, _ message: String) {
        warnings.append(Issue(path: path.description, message: message))
    }
}
