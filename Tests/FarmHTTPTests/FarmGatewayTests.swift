import Farm
import Foundation
import ReelTestSupport
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
}
