import Farm
import Foundation
import ReelTestSupport
import Synchronization
import Testing
@testable import FarmHTTP

/// The API's connections to the coordinator are pooled (docs/api.md, "How it works"):
/// calls in a row share one connection; calls at once use one each, and no more.
@Suite(.serialized) struct FarmGatewayTests {
    @Test func callsReuseTheirConnections() async throws {
        let dir = try TestEnvironment.scratchDirectory()
        let coordinator = try CoordinatorThread(.scratch(in: dir))
        defer { coordinator.stop() }
        let gateway = FarmGateway(endpoint: coordinator.endpoint, curve: nil)
        for _ in 0..<20 { _ = try await gateway.call { try $0.workers() } }
        #expect(gateway.pool.connectionsMade == 1)
        // An answer that is an error ends the exchange too: the connection goes on.
        await #expect(throws: FarmError.self) { try await gateway.call { try $0.cancel("nosuch") } }
        _ = try await gateway.call { try $0.workers() }
        #expect(gateway.pool.connectionsMade == 1)
        // Eight at once: one connection each at most, all given back.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try await gateway.call { try $0.workers() } } }
            try await group.waitForAll()
        }
        #expect((1...8).contains(gateway.pool.connectionsMade))
        let afterBurst = gateway.pool.connectionsMade
        for _ in 0..<10 { _ = try await gateway.call { try $0.workers() } }
        #expect(gateway.pool.connectionsMade == afterBurst)
    }

    /// Every connection of the HTTP side, pooled or an event stream's, shares the process's
    /// one ZeroMQ context.
    @Test func connectionsShareOneContext() throws {
        let gateway = FarmGateway(endpoint: "ipc:///nonexistent/reel-context-test", curve: nil)
        let (a, b) = (try gateway.client(), try gateway.client())
        #expect(a.context === b.context && a.context === FarmGateway.context)
    }

    /// A burst's connections are closed once they have been idle `idleSeconds` (a fake
    /// clock here): the pool shrinks back to what the calls in a row need.
    @Test func idleConnectionsAreClosed() async throws {
        let dir = try TestEnvironment.scratchDirectory()
        let coordinator = try CoordinatorThread(.scratch(in: dir))
        defer { coordinator.stop() }
        let clock = FakeClock()
        let pool = ClientPool(idleSeconds: 60, now: { clock.now })
        let gateway = FarmGateway(endpoint: coordinator.endpoint, curve: nil, pool: pool)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try await gateway.call { try $0.workers() } } }
            try await group.waitForAll()
        }
        let burst = pool.idleCount
        #expect(burst >= 1 && burst == pool.connectionsMade)
        clock.advance(by: 30)
        _ = try await gateway.call { try $0.workers() }
        #expect(pool.idleCount == burst, "not idle long enough yet")
        clock.advance(by: 61)
        _ = try await gateway.call { try $0.workers() }
        #expect(pool.idleCount == 1, "the one just returned stays; the rest were idle past 60 s")
        #expect(pool.connectionsMade == burst, "no connection was made for the calls in a row")
    }
}

/// Seconds that pass only when a test says so.
final class FakeClock: Sendable {
    private let time = Mutex<Double>(1_000)
    var now: Double { time.withLock { $0 } }
    func advance(by seconds: Double) { time.withLock { $0 += seconds } }
}
