import Foundation

/// A ZeroMQ endpoint as people type it (docs/operations.md, "A farm by hand"): with its
/// scheme (`tcp://host:port`, `ipc:///path`), or `host:port`, read as TCP.
public enum FarmEndpoint {
    /// The coordinator after `current` among a leader and its standbys, round and round
    /// (docs/operations.md, "A standby coordinator").
    static func next(after current: String, in endpoints: [String]) -> String {
        endpoints[((endpoints.firstIndex(of: current) ?? 0) + 1) % endpoints.count]
    }

    /// The endpoint to hand to libzmq, or a message that shows the right form.
    public static func normalized(_ text: String) -> Result<String, FarmError> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let scheme = trimmed.range(of: "://").map({ trimmed[..<$0.lowerBound].lowercased() }) {
            guard ["tcp", "ipc", "inproc"].contains(scheme) else {
                return .failure(FarmError(.invalidInput, "'\(text)': the scheme is tcp:// or ipc:// (e.g. tcp://127.0.0.1:7700)"))
            }
            return .success(trimmed)
        }
        guard let colon = trimmed.lastIndex(of: ":"), let port = Int(trimmed[trimmed.index(after: colon)...]),
              (1...65535).contains(port) else {
            return .failure(FarmError(.invalidInput, "'\(text)' is not an endpoint: give tcp://HOST:PORT (e.g. tcp://127.0.0.1:7700)"))
        }
        let host = trimmed[..<colon]
        return .success("tcp://\(host.isEmpty ? "127.0.0.1" : String(host)):\(port)")
    }
}
