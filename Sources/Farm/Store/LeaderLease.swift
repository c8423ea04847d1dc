import Foundation

/// Which of the coordinators sharing a PostgreSQL store leads (docs/operations.md, "A
/// standby coordinator"). One row holds the leader's name, its term (a number that grows
/// with each new leader) and when its lease ends, by the server's clock, so that the
/// machines' clocks never matter. The leader renews the lease in every turn's transaction
/// (`JobStore.fence`), and that renewal also locks the row: a candidate's takeover waits
/// for the turn to end, and a turn that finds the term changed writes nothing and ends the
/// leader's rule. So no two leaders ever commit, or send what a turn decided.
///
/// A candidate takes the lead when the lease has run out (a frozen or cut-off leader: at
/// most `seconds` after its last turn) or when the leader's writing session is gone (a
/// killed leader: the server ends its session with the connection, so the takeover does
/// not wait for the lease). The row names that session by its process id and start time.
public final class LeaderLease {
    private let db: PostgresDatabase
    public let candidate: String
    public let seconds: Double

    /// The lease a turn renews; a leader silent this long is replaced.
    public static let defaultSeconds = 10.0
    /// How often a standby tries.
    public static let retrySeconds = 1.0
    public struct Term: Sendable, Equatable {
        public var number: Int64
        public var candidate: String
    }

    /// What the row says of the leader now.
    public struct Holder: Sendable, Equatable {
        public var candidate: String
        public var term: Int64
        /// Where it takes workers and clients, as it said.
        public var endpoint: String
        public var secondsLeft: Double
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS leader(
          id INTEGER PRIMARY KEY CHECK (id = 1), holder TEXT NOT NULL, term BIGINT NOT NULL,
          expires TIMESTAMPTZ NOT NULL, endpoint TEXT NOT NULL, pid INTEGER NOT NULL, session_start TIMESTAMPTZ);
        INSERT INTO leader VALUES (1, '', 0, '-infinity', '', 0, NULL) ON CONFLICT DO NOTHING;
        """

    /// `candidate`: this process's name among the coordinators (its host and a random part:
    /// a restarted process is a new candidate).
    public init(url: String, candidate: String, seconds: Double = LeaderLease.defaultSeconds) throws {
        db = try PostgresDatabase(url: url)
        self.candidate = candidate
        self.seconds = seconds
        _ = try JobStore(database: db)   // the tables, the leader row among them
        // A takeover never waits long for a turn's row lock: it tries again in a second.
        try db.execute("SET lock_timeout = '2s'")
    }

    /// Takes the lead if it is free; the new term, or nil while another leads.
    public func tryToLead(endpoint: String) throws -> Term? {
        do {
            let rows = try db.query("""
                UPDATE leader SET holder = ?, term = term + 1, expires = clock_timestamp() + make_interval(secs => ?), endpoint = ?,
                  pid = pg_backend_pid(), session_start = \(Self.thisSessionStart)
                WHERE id = 1 AND (expires < clock_timestamp() OR NOT EXISTS (
                  SELECT 1 FROM pg_stat_activity s WHERE s.pid = leader.pid AND s.backend_start = leader.session_start))
                RETURNING term
                """, [.text(candidate), .real(seconds), .text(endpoint)])
            return rows.first?[0].int.map { Term(number: $0, candidate: candidate) }
        } catch let failure as PostgresDatabase.Failure where failure.state == "55P03" {
            return nil   // lock_timeout: the leader is in a turn; try again later
        }
    }

    static let thisSessionStart = "(SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())"

    /// The leader of `term` writes on `db` from now on: this session is the one a standby
    /// watches, and the server ends it if it freezes inside a turn (a frozen turn holds the
    /// lease row's lock, so a takeover waits no longer than the lease).
    static func claim(_ term: Int64, seconds: Double, on db: any SQLDatabase) throws {
        try db.execute("SET idle_in_transaction_session_timeout = '\(Int(seconds * 1000))ms'")
        try db.query("UPDATE leader SET pid = pg_backend_pid(), session_start = \(thisSessionStart) WHERE id = 1 AND term = ?",
                     [.integer(term)])
        guard db.changes == 1 else { throw LeaseLost(term: term) }
    }

    /// A turn's renewal, its first statement; false once another leads. The term alone
    /// decides: a lease that ran out while no one took it is still this leader's (a standby
    /// takes it by raising the term, under the row lock this renewal holds to the commit).
    static func renew(_ term: Int64, seconds: Double, on db: any SQLDatabase) throws -> Bool {
        try db.query("UPDATE leader SET expires = clock_timestamp() + make_interval(secs => ?) WHERE id = 1 AND term = ?",
                     [.real(seconds), .integer(term)])
        return db.changes == 1
    }

    /// Gives the lead up at once (a clean stop): a standby leads within `retrySeconds`.
    public func resign(_ term: Term) throws {
        try db.query("UPDATE leader SET expires = '-infinity' WHERE id = 1 AND term = ?", [.integer(term.number)])
    }

    public func holder() throws -> Holder? {
        guard let row = try db.query("""
            SELECT holder, term, endpoint, EXTRACT(EPOCH FROM expires - clock_timestamp())::float8 FROM leader
            WHERE id = 1 AND expires > clock_timestamp()
            """).first, let name = row[0].string, let term = row[1].int else { return nil }
        return Holder(candidate: name, term: term, endpoint: row[2].string ?? "", secondsLeft: row[3].double ?? 0)
    }

}

/// The leader's own turn renews its lease, and finds out there that it lost it.
public struct LeaseLost: Error, CustomStringConvertible {
    public var term: Int64
    public var description: String { "this coordinator's lead (term \(term)) has passed to another" }
}
