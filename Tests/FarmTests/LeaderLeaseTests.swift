import Foundation
import ReelTestSupport
import RenderEngine
import Testing
@testable import Farm

/// One leader among the coordinators that share a PostgreSQL store (docs/operations.md,
/// "A standby coordinator"). Time is the server's: a lease that ran out is written so by
/// the test, not waited for.
@Suite(.enabled(if: TestPostgres.isTested)) struct LeaderLeaseTests {
    @Test func oneLeadsAndALeaderThatLostTheLeaseWritesNothing() throws {
        let url = try TestPostgres.freshStore()
        let a = try LeaderLease(url: url, candidate: "a")
        let b = try LeaderLease(url: url, candidate: "b")
        let first = try #require(try a.tryToLead(endpoint: "tcp://a:7700"))
        #expect(try b.tryToLead(endpoint: "tcp://b:7700") == nil)
        #expect(try b.holder()?.candidate == "a" && b.holder()?.endpoint == "tcp://a:7700")

        // A's loop writes under its term.
        let store = try JobStore(at: .postgres(url: url))
        try store.lead(first, seconds: 10)
        try store.batch { try store.recordWorker(id: "w1", host: "h", slots: 1, at: 1) }

        // A's lease runs out (it froze): B leads, with a later term…
        let admin = try PostgresDatabase(url: url)
        try admin.execute("UPDATE leader SET expires = clock_timestamp() - interval '1 second'")
        let second = try #require(try b.tryToLead(endpoint: "tcp://b:7700"))
        #expect(second.number > first.number)
        // …and A's next turn fails whole: its write is not there.
        #expect(throws: LeaseLost.self) { try store.batch { try store.recordWorker(id: "w2", host: "h", slots: 1, at: 2) } }
        #expect(try store.shardsDone(byWorkers: ["w1", "w2"]).keys.sorted() == ["w1"])
        #expect(try a.tryToLead(endpoint: "tcp://a:7700") == nil)
    }

    /// Once the leader's loop writes, the leader is the loop's session: when that one ends
    /// (the process was killed), a standby leads at once.
    @Test func theLeaderIsTheSessionThatWrites() throws {
        let url = try TestPostgres.freshStore()
        let a = try LeaderLease(url: url, candidate: "a", seconds: 3600)
        let b = try LeaderLease(url: url, candidate: "b")
        let term = try #require(try a.tryToLead(endpoint: "tcp://a:7700"))
        var store: JobStore? = try JobStore(at: .postgres(url: url))
        try store?.lead(term, seconds: 3600)
        #expect(try b.tryToLead(endpoint: "tcp://b:7700") == nil)
        store = nil
        var next: LeaderLease.Term?
        for _ in 0..<50 where next == nil {
            next = try b.tryToLead(endpoint: "tcp://b:7700")
            if next == nil { usleep(20_000) }
        }
        #expect(next?.number == term.number + 1)
        _ = a
    }

    /// A killed leader's session ends with its connection: the standby does not wait for
    /// the lease to run out.
    @Test func aKilledLeadersSuccessorDoesNotWaitForTheLease() throws {
        let url = try TestPostgres.freshStore()
        let b = try LeaderLease(url: url, candidate: "b")
        var a: LeaderLease? = try LeaderLease(url: url, candidate: "a", seconds: 3600)
        #expect(try a?.tryToLead(endpoint: "tcp://a:7700") != nil)
        #expect(try b.tryToLead(endpoint: "tcp://b:7700") == nil)
        a = nil   // its connection closes, as a killed process's does
        var term: LeaderLease.Term?
        for _ in 0..<50 where term == nil {   // the server notices the closed socket within milliseconds
            term = try b.tryToLead(endpoint: "tcp://b:7700")
            if term == nil { usleep(20_000) }
        }
        #expect(term?.candidate == "b")
        #expect(try b.holder()?.secondsLeft ?? 0 > 5)
    }

    /// A leader that stops cleanly hands over at once.
    @Test func aResignedLeadIsTakenAtOnce() throws {
        let url = try TestPostgres.freshStore()
        let a = try LeaderLease(url: url, candidate: "a", seconds: 3600)
        let b = try LeaderLease(url: url, candidate: "b")
        let term = try #require(try a.tryToLead(endpoint: "tcp://a:7700"))
        try a.resign(term)
        #expect(try b.tryToLead(endpoint: "tcp://b:7700")?.number == term.number + 1)
    }
}
