import Foundation
import Metrics

/// Where the coordinator keeps its state (docs/operations.md, "A standby coordinator"):
/// SQLite in its state directory (the default, a farm of one machine), or a PostgreSQL
/// server that several coordinators share, one leading and the others standing by.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(url: String)

    /// `--store`: a `postgresql://` (or `postgres://`) URL; nothing for SQLite in `stateDirectory`.
    public init(_ text: String?, stateDirectory: URL) throws {
        guard let text, !text.isEmpty else {
            self = .sqlite(path: stateDirectory.appendingPathComponent("farm.sqlite").path)
            return
        }
        guard text.hasPrefix("postgresql://") || text.hasPrefix("postgres://"), URLComponents(string: text)?.host != nil else {
            throw FarmError(.invalidInput, "--store: expected postgresql://USER@HOST:PORT/DATABASE, got \(PostgresDatabase.redacted(text))")
        }
        self = .postgres(url: text)
    }

    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): PostgresDatabase.redacted(url)
        }
    }

    /// Whether several coordinators can share it: only a server can.
    public var isShared: Bool { if case .postgres = self { true } else { false } }

    /// A new connection, for one thread.
    func connect(commitTimer: Metrics.Timer? = nil) throws -> any SQLDatabase {
        switch self {
        case .sqlite(let path):
            // The store holds sessions, specs and callbacks with their presigned URLs whole (a
            // restart reads the origins and sends the result with them): readable by the
            // coordinator's user only, as a key file is. SQLite gives its -wal and -shm files
            // the database's mode (docs/operations.md, "Security").
            if !FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                    throw FarmError(.ioFailed, "cannot create the store \(path)")
                }
            }
            return try SQLiteDatabase(path: path, commitTimer: commitTimer)
        case .postgres(let url):
            return try PostgresDatabase(url: url, commitTimer: commitTimer)
        }
    }
}
