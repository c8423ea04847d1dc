import CSQLite
import Foundation
import Metrics

/// A thin owning wrapper over the SQLite C API: WAL, `synchronous=FULL` (a committed
/// state change survives a power cut), one connection, used from one thread.
public final class SQLiteDatabase: SQLDatabase {
    private var handle: OpaquePointer?
    /// Prepared statements by SQL text: the coordinator runs the same few statements per shard.
    private var statements: [String: OpaquePointer] = [:]
    public var transactionDepth = 0
    public var dialect: SQLDialect { .sqlite }
    public var isConnected: Bool { true }
    public typealias Value = SQLValue

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Times each COMMIT, when given (the job store: the coordinator's `reelfarm_store_commit_seconds`;
    /// a worker's still cache exports nothing of the coordinator's).
    public let commitTimer: Metrics.Timer?

    public init(path: String, commitTimer: Metrics.Timer? = nil) throws {
        self.commitTimer = commitTimer
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(code)"
            sqlite3_close(handle)
            throw Failure(description: "cannot open \(path): \(message)")
        }
        // Another connection's write (a lane's, the syncer's checkpoint) holds the lock for
        // a few milliseconds at most; SQLite's own busy timeout sleeps 1, 2, 5, 10, 15, 20,
        // 25 … ms between tries, so a lock held 4 ms cost the loop's BEGIN 8–18 ms, and 60 ms
        // were seen. This one tries again every 0.2 ms, for 5 s.
        sqlite3_busy_handler(handle, { _, tries in
            guard tries < 25_000 else { return 0 }
            usleep(200)
            return 1
        }, nil)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    public func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw Failure(description: "\(message) in: \(sql.prefix(80))")
        }
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: "\(String(cString: sqlite3_errmsg(handle))) in: \(sql.prefix(80))")
        }
        statements[sql] = statement
        return statement
    }

    /// Rows the last INSERT, UPDATE or DELETE changed.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Executes `sql` with `arguments` bound to `?` in order; returns the rows.
    @discardableResult
    public func query(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (i, value) in arguments.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case .null: sqlite3_bind_null(statement, index)
            case .integer(let v): sqlite3_bind_int64(statement, index, v)
            case .real(let v): sqlite3_bind_double(statement, index, v)
            case .text(let v): sqlite3_bind_text(statement, index, v, -1, CSQLite_TRANSIENT())
            case .blob(let v): _ = v.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), CSQLite_TRANSIENT()) }
            }
        }
        var rows: [[Value]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw Failure(description: "\(String(cString: sqlite3_errmsg(handle))) in: \(sql.prefix(80))")
            }
            var row: [Value] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    row.append(.blob(count == 0 ? Data() : Data(bytes: sqlite3_column_blob(statement, column), count: count)))
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        let changed = sqlite3_stmt_readonly(statement) == 0 ? Int(sqlite3_changes(handle)) : 0
        checkRowsOnALoop(max(rows.count, changed), sql)
        return rows
    }
}
