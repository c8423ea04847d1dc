/// How one attempt at a shard ended, as the store records it (an open attempt has none).
public enum AttemptOutcome: String, Codable, Sendable, CaseIterable {
    case done, failed, lost, cancelled
    case handedBack = "handed back"
    /// Another attempt at the same shard delivered first (a backup race).
    case beaten
}
