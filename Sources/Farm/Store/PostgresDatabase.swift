import CPostgres
import Foundation
import Metrics

/// A thin owning wrapper over libpq (docs/architecture.md, "The store"): one connection to
/// a PostgreSQL server, used from one thread, with the same statements as the SQLite store.
/// Each statement is prepared once per connection (by its text and its arguments' types)
/// and run with the extended protocol; `?` marks become `$1, $2, …`.
public final class PostgresDatabase: SQLDatabase {
    private let connection: OpaquePointer
    private var statements: [String: String] = [:]
    public var transactionDepth = 0
    public var dialect: SQLDialect { .postgres }
    public private(set) var changes = 0
    public let commitTimer: Metrics.Timer?

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        /// The server's SQLSTATE (`40001` a serialization failure, `57P01` an admin shutdown …).
        public var state: String?
    }

    /// `url`: `postgresql://USER@HOST:PORT/DB` (libpq's connection URI, docs/operations.md,
    /// "A standby coordinator"). Gives up after 10 s rather than waiting for a server that
    /// does not answer.
    public init(url: String, commitTimer: Metrics.Timer? = nil) throws {
        self.commitTimer = commitTimer
        let keys = ["dbname", "connect_timeout", "application_name"]
        let values = [url, "10", "reelfarm"]
        var keyPointers = keys.map { strdup($0) } + [nil]
        var valuePointers = values.map { strdup($0) } + [nil]
        defer { (keyPointers + valuePointers).forEach { free($0) } }
        // `expand_dbname`: the first value is a URI whose parts override the defaults above.
        guard let connection = keyPointers.withUnsafeMutableBufferPointer({ k in
            valuePointers.withUnsafeMutableBufferPointer { v in
                PQconnectdbParams(k.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: UnsafePointer<CChar>?.self) },
                                  v.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: UnsafePointer<CChar>?.self) }, 1)
            }
        }) else { throw Failure(description: "cannot connect to \(Self.redacted(url)): out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(connection)
            throw Failure(description: "cannot connect to \(Self.redacted(url)): \(message)")
        }
        self.connection = connection
        // CREATE … IF NOT EXISTS says NOTICE when the table exists: not worth a line on stderr.
        try execute("SET client_min_messages = warning")
    }

    deinit { PQfinish(connection) }

    /// The URL without its password, for messages and logs.
    static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "***"
        return parts.string ?? url
    }

    public func execute(_ sql: String) throws {
        // A transaction's opening and its savepoints go with the next statement, in the
        // same round trip (`pending`): a shard's change is a savepoint around two or three
        // statements, and each round trip to the server costs the loop ~0.1 ms.
        if Self.opensOrCloses(sql) {
            pending.append(sql)
            return
        }
        if let undone = Self.undoes(sql), let opened = pending.lastIndex(of: undone) {
            pending.removeSubrange(opened...)   // never sent: nothing to undo
            return
        }
        let text = (pending + [sql]).joined(separator: "; ")
        pending = []
        guard let result = PQexec(connection, text) else { throw lost(sql) }
        defer { PQclear(result) }
        try check(result, text)
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Statements not yet sent, sent before the next one that is.
    private var pending: [String] = []

    /// `BEGIN`, `SAVEPOINT sN` and `RELEASE sN`: nothing to read back, and an error in one
    /// shows in the statement sent with it.
    static func opensOrCloses(_ sql: String) -> Bool {
        sql == "BEGIN" || sql.hasPrefix("SAVEPOINT ") || (sql.hasPrefix("RELEASE ") && !sql.contains(";"))
    }

    /// The statement that opened what `sql` rolls back: `ROLLBACK` undoes `BEGIN`,
    /// `ROLLBACK TO sN; RELEASE sN` undoes `SAVEPOINT sN`.
    static func undoes(_ sql: String) -> String? {
        if sql == "ROLLBACK" { return "BEGIN" }
        guard sql.hasPrefix("ROLLBACK TO "), let name = sql.dropFirst(12).split(separator: ";").first else { return nil }
        return "SAVEPOINT \(name)"
    }

    @discardableResult
    public func query(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]] {
        let name = try prepared(sql, types: arguments.map(\.postgresType))
        // Each argument as its text (its bytes for a blob), alive until the call returns.
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { buffers.forEach { free($0) } }
        for argument in arguments {
            switch argument {
            case .null: buffers.append(nil); lengths.append(0); formats.append(0)
            case .integer(let v): buffers.append(strdup(String(v))); lengths.append(0); formats.append(0)
            case .real(let v): buffers.append(strdup(Self.text(v))); lengths.append(0); formats.append(0)
            case .text(let v): buffers.append(strdup(v)); lengths.append(0); formats.append(0)
            case .blob(let v):
                guard let bytes = malloc(max(1, v.count))?.assumingMemoryBound(to: CChar.self) else {
                    throw Failure(description: "out of memory for a blob of \(v.count) bytes")
                }
                v.withUnsafeBytes { source in
                    if let base = source.baseAddress { UnsafeMutableRawPointer(bytes).copyMemory(from: base, byteCount: v.count) }
                }
                buffers.append(bytes); lengths.append(Int32(v.count)); formats.append(1)
            }
        }
        let values = buffers.map { $0.map { UnsafePointer($0) } }
        guard let result = try pending.isEmpty ? PQexecPrepared(connection, name, Int32(arguments.count), values, lengths, formats, 0)
                : pipelined(name, values, lengths, formats, sql) else { throw lost(sql) }
        defer { PQclear(result) }
        try check(result, sql)
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        let rows = try Self.rows(of: result)
        checkRowsOnALoop(max(rows.count, changes), sql)
        return rows
    }

    /// The pending statements and this one in one round trip (libpq's pipeline mode); the
    /// result is this one's. A pending statement that failed fails this one.
    private func pipelined(_ name: String, _ values: [UnsafePointer<CChar>?], _ lengths: [Int32], _ formats: [Int32],
                           _ sql: String) throws -> OpaquePointer? {
        let sent = pending
        pending = []
        guard PQenterPipelineMode(connection) == 1 else { throw lost(sql) }
        defer { PQexitPipelineMode(connection) }
        for statement in sent {
            guard PQsendQueryParams(connection, statement, 0, nil, nil, nil, nil, 0) == 1 else { throw lost(statement) }
        }
        guard PQsendQueryPrepared(connection, name, Int32(values.count), values, lengths, formats, 0) == 1,
              PQpipelineSync(connection) == 1 else { throw lost(sql) }
        var failure: Failure?
        var last: OpaquePointer?
        // Each statement's result, then a nil between statements; the sync's last.
        for index in 0...sent.count {
            while let result = PQgetResult(connection) {
                if index < sent.count {
                    if failure == nil { do { try check(result, sent[index]) } catch let error as Failure { failure = error } }
                    PQclear(result)
                } else {
                    if let last { PQclear(last) }
                    last = result
                }
            }
        }
        // The pipeline's sync point.
        if let sync = PQgetResult(connection) { PQclear(sync) }
        if let failure {
            if let last { PQclear(last) }
            throw failure
        }
        return last
    }

    /// The prepared statement's name for this text and these argument types.
    private func prepared(_ sql: String, types: [UInt32]) throws -> String {
        let key = types.isEmpty ? sql : sql + "\u{0}" + types.map(String.init).joined(separator: ",")
        if let name = statements[key] { return name }
        let name = "r\(statements.count)"
        let text = Self.numberedMarks(sql)
        guard let result = PQprepare(connection, name, text, Int32(types.count), types) else { throw lost(sql) }
        defer { PQclear(result) }
        try check(result, sql)
        statements[key] = name
        return name
    }

    private func check(_ result: OpaquePointer, _ sql: String) throws {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default:
            let message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            throw Failure(description: "\(message) in: \(sql.prefix(80))", state: state)
        }
    }

    /// No result at all: the connection is gone (the server stopped, the network dropped it).
    private func lost(_ sql: String) -> Failure {
        Failure(description: "the store's server is gone (\(String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines))) in: \(sql.prefix(80))",
                state: "08006")
    }

    /// Whether the connection still stands. It is not made again behind the caller's back:
    /// a coordinator cut off from its store stops leading (docs/operations.md).
    public var isConnected: Bool { PQstatus(connection) == CONNECTION_OK }

    /// `?` → `$1, $2, …`, outside quoted strings and identifiers.
    static func numberedMarks(_ sql: String) -> String {
        var out = ""
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                out.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                out.append(character)
            } else if character == "?" {
                number += 1
                out += "$\(number)"
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// A double as PostgreSQL reads it back exactly (Swift prints the shortest exact form).
    static func text(_ value: Double) -> String {
        value.isNaN ? "NaN" : value.isInfinite ? (value > 0 ? "Infinity" : "-Infinity") : "\(value)"
    }

    private static func rows(of result: OpaquePointer) throws -> [[SQLValue]] {
        let count = PQntuples(result), columns = PQnfields(result)
        guard count > 0 else { return [] }
        let types = (0..<columns).map { PQftype(result, $0) }
        var rows: [[SQLValue]] = []
        rows.reserveCapacity(Int(count))
        for row in 0..<count {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columns))
            for column in 0..<columns {
                if PQgetisnull(result, row, column) != 0 {
                    values.append(.null)
                    continue
                }
                let text = PQgetvalue(result, row, column)
                values.append(try value(type: types[Int(column)], text: text, length: Int(PQgetlength(result, row, column))))
            }
            rows.append(values)
        }
        return rows
    }

    /// Type OIDs of the server's built-in types (pg_type.dat).
    private enum OID {
        static let bool: UInt32 = 16, bytea: UInt32 = 17, int8: UInt32 = 20, int2: UInt32 = 21, int4: UInt32 = 23
        static let text: UInt32 = 25, oid: UInt32 = 26, float4: UInt32 = 700, float8: UInt32 = 701, numeric: UInt32 = 1700
    }

    private static func value(type: UInt32, text: UnsafeMutablePointer<CChar>?, length: Int) throws -> SQLValue {
        guard let text else { return .null }
        switch type {
        case OID.int8, OID.int2, OID.int4, OID.oid:
            guard let v = Int64(String(cString: text)) else { throw Failure(description: "not an integer: \(String(cString: text))") }
            return .integer(v)
        case OID.float4, OID.float8:
            guard let v = Double(String(cString: text)) else { throw Failure(description: "not a number: \(String(cString: text))") }
            return .real(v)
        case OID.numeric:
            let string = String(cString: text)
            if let v = Int64(string) { return .integer(v) }
            guard let v = Double(string) else { throw Failure(description: "not a number: \(string)") }
            return .real(v)
        case OID.bool:
            return .integer(text.pointee == CChar(UInt8(ascii: "t")) ? 1 : 0)
        case OID.bytea:
            var count = 0
            guard let bytes = PQunescapeBytea(UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), &count) else {
                throw Failure(description: "a bytea value that does not decode")
            }
            defer { PQfreemem(bytes) }
            return .blob(Data(bytes: bytes, count: count))
        default:
            return .text(String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self))
        }
    }
}

extension SQLValue {
    /// The argument's type as the server should read it; `0` lets it infer a NULL's type.
    var postgresType: UInt32 {
        switch self {
        case .null: 0
        case .integer: 20
        case .real: 701
        case .text: 25
        case .blob: 17
        }
    }
}
