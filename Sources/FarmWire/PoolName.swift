/// A pool's name (docs/operations.md, "Pools"): 1 to 63 lowercase letters, digits, `-`,
/// `.` and `_`, starting with a letter or digit — a Kubernetes label value, so a
/// Deployment per pool can carry its name.
public enum PoolName {
    public static let maxLength = 63

    /// What is wrong with `name` as a pool's, or `nil`.
    public static func problem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        func isAlphanumeric(_ byte: UInt8) -> Bool { (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) }
        guard (1...maxLength).contains(bytes.count), let first = bytes.first, isAlphanumeric(first),
              bytes.allSatisfy({ isAlphanumeric($0) || $0 == 0x2d || $0 == 0x2e || $0 == 0x5f }) else {
            return "\"\(name.prefix(80))\" is not a pool name (1 to \(maxLength) of a-z, 0-9, '-', '.', '_', starting with a letter or digit)"
        }
        return nil
    }

    /// Refuses a name that is not a pool's, saying where it was found (`path`).
    public static func check(_ name: String, at path: String) throws {
        if let problem = problem(name) { throw FarmError(.invalidInput, "\(path): \(problem)") }
    }
}
