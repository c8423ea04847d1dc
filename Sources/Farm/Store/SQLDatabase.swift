import Dispatch
import Foundation
import Metrics

/// A value bound to a statement's `?` or read from a row, whichever database holds it.
public enum SQLValue: Equatable, Sendable {
    case null, integer(Int64), real(Double), text(String), blob(Data)

    public var int: Int64? { if case .integer(let v) = self { return v } else { return nil } }
    public var string: String? { if case .text(let v) = self { return v } else { return nil } }
    public var double: Double? {
        switch self {
        case .real(let v): return v
        case .integer(let v): return Double(v)
        default: return nil
        }
    }
}

/// Where SQL differs between the two stores (docs/architecture.md, "The store"). Statements
/// are written once, in the SQL both accept (`?` marks, `ON CONFLICT`, savepoints); these
/// are the few words that are not the same.
public enum SQLDialect: Sendable {
    case sqlite, postgres

    /// Opens a transaction that writes: SQLite takes the write lock at once, so a
    /// transaction never fails half-way for want of it.
    var begin: String { self == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN" }
    /// A row's physical address, for deleting a bounded slice of rows.
    var rowAddress: String { self == .sqlite ? "rowid" : "ctid" }
    /// The order in which a table's rows were inserted (a batch's variants, as submitted).
    var insertionOrder: String { self == .sqlite ? "rowid" : "seq" }
}

/// One connection to the job store, used from one thread: the statements a `JobStore`
/// runs, over SQLite (`SQLiteDatabase`) or PostgreSQL (`PostgresDatabase`).
public protocol SQLDatabase: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs `sql` (one or several statements) with no arguments and no rows.
    func execute(_ sql: String) throws
    /// Runs one statement with `arguments` bound to its `?` marks in order; returns the rows.
    @discardableResult
    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]]
    /// Rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { get }
    /// Whether the connection stands (a file always does; a server's may drop).
    var isConnected: Bool { get }
    /// How many `transaction` calls are open: the outermost commits, inner ones are savepoints.
    var transactionDepth: Int { get set }
    /// Times each COMMIT (the coordinator's `reelfarm_store_commit_seconds`), when given.
    var commitTimer: Metrics.Timer? { get }
}

extension SQLDatabase {
    @discardableResult
    public func query(_ sql: String) throws -> [[SQLValue]] { try query(sql, []) }

    /// Runs `body` in one transaction: every state change is all or nothing. Nested calls
    /// are savepoints, so a change that fails inside a batch undoes only itself, and the
    /// outermost call commits the batch with one sync (group commit).
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let savepoint = "s\(transactionDepth)"
        try execute(transactionDepth == 0 ? dialect.begin : "SAVEPOINT \(savepoint)")
        transactionDepth += 1
        let result: T
        do {
            result = try body()
        } catch {
            transactionDepth -= 1
            rollBack(savepoint)
            throw error
        }
        transactionDepth -= 1
        do {
            // A full disk is usually found here, at COMMIT: the transaction is then undone
            // whole, so the caller may write the same changes again later.
            if transactionDepth == 0 {
                let started = DispatchTime.now()
                try execute("COMMIT")
                commitTimer?.recordInterval(since: started)
            } else {
                try execute("RELEASE \(savepoint)")
            }
        } catch {
            rollBack(savepoint)
            throw error
        }
        return result
    }

    /// Undoes the innermost open transaction. An error here means there is nothing left to
    /// undo (the failed COMMIT already ended it), so it is not reported.
    private func rollBack(_ savepoint: String) {
        do {
            try execute(transactionDepth == 0 ? "ROLLBACK" : "ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
        } catch {}
    }

    /// A statement's rows on the coordinator's loop are few (docs/architecture.md, "The loop
    /// does not block"): a turn's statements touch a job's or a shard's rows; lists, pages
    /// and prunes run on a lane's connection.
    func checkRowsOnALoop(_ rows: Int, _ sql: String) {
        if rows > SQLStore.rowsOnALoop {
            LoopGuard.assertMayBlock("a statement over \(rows) rows (\(sql.prefix(60)))")
        }
    }
}

/// Limits shared by both stores.
public enum SQLStore {
    /// Rows one statement may read or change on an event loop (`checkRowsOnALoop`).
    public static let rowsOnALoop = 64

    /// `items` in runs of at most `size`: one statement each (a list, a multi-row insert).
    static func slices<Items: RandomAccessCollection>(_ items: Items, of size: Int = rowsOnALoop) -> [Items.SubSequence] {
        stride(from: 0, to: items.count, by: size).map { start in
            let first = items.index(items.startIndex, offsetBy: start)
            return items[first..<items.index(first, offsetBy: min(size, items.count - start))]
        }
    }

    /// `count` `?` marks for an `IN (…)` list.
    static func marks(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ",") }
}
